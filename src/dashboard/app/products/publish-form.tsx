// Publish a version: the file goes up through the resumable uploads (tus, with a progress bar and
// Cancel), then the version is published naming that upload. A refusal keeps everything typed and
// shows beside its field until that field is changed; a finished upload is kept for the next try, so
// fixing a field sends no byte twice. A product with benefits also gets a Benefit select: the whole
// product, or one benefit.
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { useForm } from "../form.ts";
import { useLoad } from "../load.ts";
import { SuccessNotice } from "../notice.tsx";
import { listOptions } from "../product-admin/api.ts";
import { TusUpload, UploadCancelled } from "../uploads/tus.ts";
import type { Version } from "../wire.ts";
import { checkMayPublish, type Published, publishVersion } from "./api.ts";
import { BenefitSelect } from "./benefit-select.tsx";
import { ChangelogEditor } from "./changelog-editor.tsx";
import { FileChoice } from "./file-choice.tsx";
import { NO_TARGET, TargetFields, targetOfFile } from "./target-fields.tsx";

interface Props {
  productId: number;
  onPublished: (version: Version) => void;
}

/** The form's inputs; `benefit_id` is a benefit's id, or "" for the whole product. */
const EMPTY = {
  benefit_id: "",
  file: null as File | null,
  target: NO_TARGET,
  version_name: "",
  title: "",
  changelog: "",
};

/** The 422's keys an input answers for, besides its own name. */
const ERROR_KEYS = {
  file: ["file", "upload_id"],
  target: ["platform", "arch"],
  changelog: ["changelog", "changelog_format"],
};

export function PublishForm({ productId, onPublished }: Props) {
  const form = useForm(EMPTY, { failure: "Publishing failed.", errorKeys: ERROR_KEYS });
  const { values } = form;
  // The benefits to choose from. Should the options list be refused or fail, the form publishes to the
  // whole product as it always could, so that failure is not shown as one.
  const { loading: options } = useLoad(() => listOptions(productId).catch(() => []), "", [productId]);
  const [progress, setProgress] = useState<{ offset: number; size: number } | null>(null);
  const [published, setPublished] = useState<Published | null>(null);
  // "Dismiss" closes the success notice; the version's warnings under it stay.
  const [dismissed, setDismissed] = useState(false);
  const [cancelled, setCancelled] = useState(false);
  const [upload, setUpload] = useState<TusUpload | null>(null);
  /** The last finished upload: publishing the same file again names it instead of sending it again. */
  const finished = useRef<{ file: File; id: string } | null>(null);
  // The form remounts (a fresh file input) after a publish.
  const [generation, setGeneration] = useState(0);

  const chooseFile = (chosen: File | null) => {
    form.set("file", chosen);
    // What the name says, shown and changeable; sent as the file's platform and arch.
    form.set("target", targetOfFile(chosen));
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
    const { file, benefit_id, target, ...fields } = values;
    let outcome: Published | null = null;
    await form.run(async () => {
      try {
        // Without a file the publish is still sent: the server's 422 then names every missing field.
        const id = file ? await uploaded(file) : null;
        outcome = await publishVersion(
          productId,
          { ...fields, ...target },
          id,
          benefit_id === "" ? null : Number(benefit_id),
        );
      } catch (failure) {
        if (failure instanceof UploadCancelled) return setCancelled(true);
        // The upload itself was refused (expired, say): the next try sends the file afresh.
        if (failure instanceof ApiError && failure.fields.upload_id) finished.current = null;
        throw failure;
      }
    });
    if (outcome === null) return;
    const made: Published = outcome;
    form.reset();
    setProgress(null);
    finished.current = null;
    setGeneration((n) => n + 1);
    setPublished(made);
    setDismissed(false);
    onPublished(made.version);
  };

  const percent = progress && progress.size > 0 ? Math.floor((progress.offset * 100) / progress.size) : 0;

  return (
    <form key={generation} onSubmit={submit} aria-labelledby="publish-heading" class="panel" noValidate>
      <h2 id="publish-heading">Publish a version</h2>
      <ErrorAlert message={form.summary} />
      {published && !dismissed && (
        <SuccessNotice onDismiss={() => setDismissed(true)}>
          Version <bdi>{published.version.version_number}</bdi>
          {published.version.benefit_name && (
            <>
              {" of "}
              <bdi>{published.version.benefit_name}</bdi>
            </>
          )}{" "}
          is published.
        </SuccessNotice>
      )}
      {published?.warnings.map((warning) => (
        <p key={warning} class="notice warning" role="alert">
          {warning}
        </p>
      ))}
      {cancelled && (
        <p class="notice" role="status">
          The upload was cancelled; nothing was published.
        </p>
      )}
      {options.state === "loaded" && (
        <BenefitSelect
          id="publish-benefit"
          options={options.data}
          value={values.benefit_id}
          error={form.errorOf("benefit_id")}
          disabled={form.busy}
          onChange={(benefit) => form.set("benefit_id", benefit)}
        />
      )}
      <FileChoice
        id="publish-file"
        file={values.file}
        error={form.errorOf("file")}
        disabled={form.busy}
        onChoose={chooseFile}
      />
      <TargetFields
        id="publish"
        file={values.file}
        value={values.target}
        errors={{ platform: form.errorOf("platform"), arch: form.errorOf("arch") }}
        disabled={form.busy}
        onChange={(target) => form.set("target", target)}
      />
      <Field
        id="publish-version"
        label="Version"
        {...form.input("version_name")}
        alert
        required
        maxLength={255}
        autocomplete="off"
        placeholder="e.g. 2.1.0"
      />
      <Field
        id="publish-title"
        label="Title"
        {...form.input("title")}
        alert
        required
        maxLength={255}
        autocomplete="off"
      />
      <ChangelogEditor
        id="publish-changelog"
        value={values.changelog}
        error={form.errorOf("changelog")}
        onInput={(changelog) => form.set("changelog", changelog)}
      />
      {progress && (form.busy || percent === 100) && (
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
        <button key="publish" type="submit" disabled={form.busy}>
          {form.busy ? "Publishing…" : "Publish"}
        </button>
      )}
    </form>
  );
}
