// Publish a version: the file goes up through the resumable uploads (tus, with a progress bar and
// Cancel), then the version is published naming that upload. A refusal keeps everything typed and
// shows beside its field until that field is changed; a finished upload is kept for the next try, so
// fixing a field sends no byte twice. A product with benefits also gets a Benefit select: the whole
// product, or one benefit.
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { Field } from "../field.tsx";
import { useLoad } from "../load.ts";
import { listOptions } from "../product-admin/api.ts";
import { useSubmission } from "../submission.ts";
import { TusUpload, UploadCancelled } from "../uploads/tus.ts";
import type { Version } from "../wire.ts";
import { checkMayPublish, publishVersion } from "./api.ts";
import { BenefitSelect } from "./benefit-select.tsx";
import { ChangelogEditor } from "./changelog-editor.tsx";
import { FileChoice } from "./file-choice.tsx";

interface Props {
  productId: number;
  onPublished: (version: Version) => void;
}

const EMPTY = { version_name: "", title: "", changelog: "" };

/** The 422's keys each input answers for: its error goes when the input changes. */
const ERROR_KEYS: Record<keyof typeof EMPTY, string[]> = {
  version_name: ["version_name"],
  title: ["title"],
  changelog: ["changelog", "changelog_format"],
};

/** The 422's first message for any of `keys`. */
const errorFor = (fields: Record<string, string[]>, ...keys: string[]) =>
  keys.map((key) => fields[key]?.[0]).find(Boolean) ?? null;

export function PublishForm({ productId, onPublished }: Props) {
  const [values, setValues] = useState(EMPTY);
  // The benefits to choose from. Should the options list be refused or fail, the form publishes to the
  // whole product as it always could, so that failure is not shown as one.
  const { loading: options } = useLoad(() => listOptions(productId).catch(() => []), "", [productId]);
  /** A benefit's id, or "" for the whole product. */
  const [benefit, setBenefit] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ offset: number; size: number } | null>(null);
  const [published, setPublished] = useState<Version | null>(null);
  const [cancelled, setCancelled] = useState(false);
  const [upload, setUpload] = useState<TusUpload | null>(null);
  /** The last finished upload: publishing the same file again names it instead of sending it again. */
  const finished = useRef<{ file: File; id: string } | null>(null);
  // The form remounts (a fresh file input) after a publish.
  const [generation, setGeneration] = useState(0);
  const { busy, error, fields, run, changed } = useSubmission("Publishing failed.");

  const set = (name: keyof typeof EMPTY) => (value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    changed(...ERROR_KEYS[name]);
  };
  const chooseBenefit = (value: string) => {
    setBenefit(value);
    changed("benefit_id");
  };
  const chooseFile = (chosen: File | null) => {
    setFile(chosen);
    changed("file", "upload_id");
    // The bar showed the last file's upload.
    setProgress(null);
  };

  /** The chosen file's upload id: the finished one, or a new upload (its refusal is about File). */
  const uploaded = async (chosen: File): Promise<string> => {
    if (finished.current?.file === chosen) return finished.current.id;
    await checkMayPublish(productId);
    const tus = new TusUpload(chosen, { onProgress: (offset, size) => setProgress({ offset, size }) });
    setUpload(tus);
    try {
      const id = await tus.done;
      finished.current = { file: chosen, id };
      return id;
    } catch (failure) {
      if (failure instanceof ApiError)
        throw new ApiError(failure.status, failure.message, { file: [failure.message] });
      throw failure;
    } finally {
      setUpload(null);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setPublished(null);
    setCancelled(false);
    setProgress(null);
    let version: Version | null = null;
    await run(async () => {
      try {
        // Without a file the publish is still sent: the server's 422 then names every missing field.
        const id = file ? await uploaded(file) : null;
        version = await publishVersion(productId, values, id, benefit === "" ? null : Number(benefit));
      } catch (failure) {
        if (failure instanceof UploadCancelled) return setCancelled(true);
        // The upload itself was refused (expired, say): the next try sends the file afresh.
        if (failure instanceof ApiError && failure.fields.upload_id) finished.current = null;
        throw failure;
      }
    });
    if (version === null) return;
    const made: Version = version;
    setValues(EMPTY);
    setBenefit("");
    setFile(null);
    setProgress(null);
    finished.current = null;
    setGeneration((n) => n + 1);
    setPublished(made);
    onPublished(made);
  };

  const benefitError = errorFor(fields, "benefit_id");
  const fileError = errorFor(fields, "file", "upload_id");
  const versionError = errorFor(fields, "version_name");
  const titleError = errorFor(fields, "title");
  const changelogError = errorFor(fields, "changelog", "changelog_format");
  // A 422 about a field is shown beside it; only anything else goes in the alert above the form.
  const generalError =
    error && !benefitError && !fileError && !versionError && !titleError && !changelogError ? error : null;
  const percent = progress && progress.size > 0 ? Math.floor((progress.offset * 100) / progress.size) : 0;

  return (
    <form key={generation} onSubmit={submit} aria-labelledby="publish-heading" class="panel" noValidate>
      <h2 id="publish-heading">Publish a version</h2>
      {generalError && (
        <p class="error" role="alert">
          {generalError}
        </p>
      )}
      {published && (
        <p class="notice success" role="status">
          Version <bdi>{published.version_number}</bdi>
          {published.benefit_name && (
            <>
              {" of "}
              <bdi>{published.benefit_name}</bdi>
            </>
          )}{" "}
          is published.
        </p>
      )}
      {cancelled && (
        <p class="notice" role="status">
          The upload was cancelled; nothing was published.
        </p>
      )}
      {options.state === "loaded" && (
        <BenefitSelect
          id="publish-benefit"
          options={options.data}
          value={benefit}
          error={benefitError}
          disabled={busy}
          onChange={chooseBenefit}
        />
      )}
      <FileChoice id="publish-file" file={file} error={fileError} disabled={busy} onChoose={chooseFile} />
      <Field
        id="publish-version"
        label="Version"
        error={versionError}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. 2.1.0"
        value={values.version_name}
        onInput={(event) => set("version_name")(event.currentTarget.value)}
      />
      <Field
        id="publish-title"
        label="Title"
        error={titleError}
        alert
        required
        maxLength={255}
        autocomplete="off"
        value={values.title}
        onInput={(event) => set("title")(event.currentTarget.value)}
      />
      <ChangelogEditor
        id="publish-changelog"
        value={values.changelog}
        error={changelogError}
        onInput={set("changelog")}
      />
      {progress && (busy || percent === 100) && (
        <div class="upload-progress">
          <label for="publish-progress">Upload</label>
          <progress
            id="publish-progress"
            max={100}
            value={percent}
            aria-describedby="publish-progress-text"
          />
          <span id="publish-progress-text" aria-live="polite">
            {percent} %
          </span>
        </div>
      )}
      {/* Keyed apart: were one element turned from Cancel into Publish while its click is handled
          (the cancel settles in microtasks), the click's default action would submit the form. */}
      {upload ? (
        <button key="cancel" type="button" class="secondary" onClick={() => void upload.cancel()}>
          Cancel upload
        </button>
      ) : (
        <button key="publish" type="submit" disabled={busy}>
          {busy ? "Publishing…" : "Publish"}
        </button>
      )}
    </form>
  );
}
