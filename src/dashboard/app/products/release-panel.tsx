// What a publisher does with one version after publishing it: its files (one per platform and
// architecture, with their checksums and signatures, each marked for updaters only or not), another
// file added, and its release: a draft
// released, the staged rollout set (a slider with its number, and steps that raise it over time), a
// yank with its reason and its undo,
// critical or not. Every change is the API's PATCH; its refusal is shown here, the rest stays as it was.
import { useEffect, useState } from "preact/hooks";
import { ApiError, messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { RolloutTakeUp } from "../overview/rollout-take-up.tsx";
import { formatBytes } from "../sizes.ts";
import { TusUpload, UploadCancelled } from "../uploads/tus.ts";
import type { Artifact, ReleaseChange, Version } from "../wire.ts";
import { YankedMark } from "../yanked.tsx";
import { addArtifact, changeRelease, checkMayPublish, deleteArtifact, markUpdatersOnly } from "./api.ts";
import { FileChoice } from "./file-choice.tsx";
import { nextStep, nextStepText, RolloutSchedule } from "./rollout-schedule.tsx";
import { NO_TARGET, platformName, TargetFields, targetOfFile } from "./target-fields.tsx";

interface Props {
  productId: number;
  version: Version;
  /** Called with the version as the server now has it (the list shows it). */
  onChanged: () => void;
}

/** The badges a version's row carries: its channel, status (a yank with its reason), criticality and partial rollout. */
export function ReleaseBadges({ version }: { version: Version }) {
  const next = nextStep(version);
  return (
    <>
      {version.channel !== "stable" && <span class="badge">{version.channel}</span>}
      {version.status === "draft" && <span class="badge">Draft</span>}
      <YankedMark version={version} />
      {version.critical && <span class="badge">Critical</span>}
      {version.status === "published" && version.rollout_percentage < 100 && (
        <span class="badge">{`Rolled out to ${version.rollout_percentage} %`}</span>
      )}
      {version.status === "published" && next && <span class="badge">{nextStepText(next)}</span>}
    </>
  );
}

export function ReleasePanel({ productId, version, onChanged }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rollout, setRollout] = useState(version.rollout_percentage);
  const [reason, setReason] = useState("");
  const label = isolated(version.version_number);

  const change = async (patch: ReleaseChange) => {
    setBusy(true);
    setError(null);
    try {
      await changeRelease(productId, version.id, patch);
      onChanged();
    } catch (failure) {
      setError(messageOf(failure, "The change failed."));
    }
    setBusy(false);
  };

  const removeFile = async (artifact: Artifact) => {
    if (!confirm(`Delete ${isolated(artifact.file_name)} from version ${label}?`)) return;
    setBusy(true);
    setError(null);
    try {
      await deleteArtifact(productId, version.id, artifact.id);
      onChanged();
    } catch (failure) {
      setError(messageOf(failure, "Deleting the file failed."));
    }
    setBusy(false);
  };

  // A mark being sent shows as ticked (or not) until the version read again says what the file is.
  const [marking, setMarking] = useState<Record<number, boolean>>({});
  useEffect(() => setMarking({}), [version]);
  const markFile = async (artifact: Artifact, updatersOnly: boolean) => {
    setMarking((current) => ({ ...current, [artifact.id]: updatersOnly }));
    setBusy(true);
    setError(null);
    try {
      await markUpdatersOnly(productId, version.id, artifact.id, updatersOnly);
      onChanged();
    } catch (failure) {
      setMarking(({ [artifact.id]: _, ...rest }) => rest);
      setError(messageOf(failure, "Changing the file failed."));
    }
    setBusy(false);
  };

  return (
    <div class="release-panel">
      <ErrorAlert message={error} />
      <table class="artifacts">
        <caption>
          Files of <bdi>{version.version_number}</bdi>
        </caption>
        <thead>
          <tr>
            <th scope="col">Platform</th>
            <th scope="col">File</th>
            <th scope="col">Size</th>
            <th scope="col">SHA-256</th>
            <th scope="col">Signature</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {version.artifacts.map((artifact) => (
            <tr key={artifact.id}>
              <td>{platformName(artifact)}</td>
              <td>
                <a href={new URL(artifact.download_url, location.origin).pathname} download>
                  <bdi>{artifact.file_name}</bdi>
                </a>
                <label class="check-inline hint">
                  <input
                    type="checkbox"
                    checked={marking[artifact.id] ?? artifact.updaters_only}
                    disabled={busy}
                    onChange={(event) => void markFile(artifact, event.currentTarget.checked)}
                    aria-label={`Updaters only (${artifact.file_name})`}
                  />{" "}
                  Updaters only
                </label>
              </td>
              <td>{formatBytes(artifact.file_size)}</td>
              <td>
                <code title={artifact.sha256}>{artifact.sha256.slice(0, 12)}…</code>
              </td>
              <td>{artifact.signature ? "yes" : "no"}</td>
              <td>
                {version.artifacts.length > 1 && (
                  <button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() => void removeFile(artifact)}
                    aria-label={`Delete ${artifact.file_name}`}
                  >
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <ArtifactForm productId={productId} version={version} onAdded={onChanged} />

      <div class="release-actions">
        {version.status === "draft" && (
          <button type="button" disabled={busy} onClick={() => void change({ status: "published" })}>
            Release <bdi>{version.version_number}</bdi>
          </button>
        )}
        {version.status === "published" && (
          <>
            <form
              class="rollout"
              onSubmit={(event) => {
                event.preventDefault();
                void change({ rollout_percentage: rollout });
              }}
            >
              <label for={`rollout-${version.id}`}>Rollout</label>
              <input
                id={`rollout-${version.id}`}
                type="range"
                min={0}
                max={100}
                step={1}
                value={rollout}
                disabled={busy}
                onInput={(event) => setRollout(Number(event.currentTarget.value))}
              />
              <input
                type="number"
                min={0}
                max={100}
                value={rollout}
                disabled={busy}
                aria-label="Rollout, percent of clients"
                onInput={(event) =>
                  setRollout(Math.max(0, Math.min(100, Number(event.currentTarget.value) || 0)))
                }
              />
              <span aria-hidden="true">%</span>
              <button type="submit" disabled={busy || rollout === version.rollout_percentage}>
                Save rollout
              </button>
            </form>
            <RolloutTakeUp version={version} />
            <RolloutSchedule version={version} busy={busy} onSave={change} />
            <form
              class="yank"
              onSubmit={(event) => {
                event.preventDefault();
                void change({ status: "yanked", yank_reason: reason });
              }}
            >
              <Field
                id={`yank-reason-${version.id}`}
                label="Reason to yank"
                value={reason}
                error={null}
                maxLength={1000}
                disabled={busy}
                onInput={(event) => setReason(event.currentTarget.value)}
              />
              <button type="submit" class="danger" disabled={busy || reason.trim() === ""}>
                Yank <bdi>{version.version_number}</bdi>
              </button>
            </form>
          </>
        )}
        {version.status === "yanked" && (
          <p>
            Yanked
            {version.yank_reason && (
              <>
                : <bdi>{version.yank_reason}</bdi>
              </>
            )}
            .{" "}
            <button type="button" disabled={busy} onClick={() => void change({ status: "published" })}>
              Undo the yank
            </button>
          </p>
        )}
        {version.status !== "draft" && (
          <button type="button" disabled={busy} onClick={() => void change({ critical: !version.critical })}>
            {version.critical ? "Not critical" : "Mark critical"}
          </button>
        )}
      </div>
    </div>
  );
}

/** Another file for the version: it goes up resumably, then becomes the version's file for a platform. */
function ArtifactForm({
  productId,
  version,
  onAdded,
}: {
  productId: number;
  version: Version;
  onAdded: () => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [target, setTarget] = useState(NO_TARGET);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return setErrors({ file: ["Choose a file."] });
    setBusy(true);
    setErrors({});
    setMessage(null);
    try {
      await checkMayPublish(productId);
      const id = await new TusUpload(file, {}).done;
      await addArtifact(productId, version.id, { upload_id: id, ...target });
      setFile(null);
      setGeneration((n) => n + 1);
      onAdded();
    } catch (failure) {
      if (failure instanceof UploadCancelled) setMessage("The upload was cancelled.");
      else if (failure instanceof ApiError && Object.keys(failure.fields).length > 0)
        setErrors(failure.fields);
      else setMessage(messageOf(failure, "Adding the file failed."));
    }
    setBusy(false);
  };
  const errorOf = (...keys: string[]) => keys.map((key) => errors[key]?.[0]).find(Boolean) ?? null;

  return (
    <form key={generation} class="artifact-form" onSubmit={submit} noValidate>
      <h3>
        Add a file to <bdi>{version.version_number}</bdi>
      </h3>
      <ErrorAlert message={message} />
      <FileChoice
        id={`artifact-file-${version.id}`}
        file={file}
        error={errorOf("file", "upload_id")}
        disabled={busy}
        onChoose={(chosen) => {
          setFile(chosen);
          setTarget(targetOfFile(chosen));
        }}
      />
      <TargetFields
        id={`artifact-${version.id}`}
        file={file}
        value={target}
        errors={{ platform: errorOf("platform"), arch: errorOf("arch") }}
        disabled={busy}
        onChange={setTarget}
      />
      <button type="submit" disabled={busy}>
        {busy ? "Adding…" : "Add the file"}
      </button>
    </form>
  );
}
