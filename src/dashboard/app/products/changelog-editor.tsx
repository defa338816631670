// The changelog in Markdown, with a Preview rendered by depot itself (POST /api/changelog/preview):
// what readers will see, sanitised on the server, so nothing here renders Markdown or trusts HTML.
import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { TextAreaField } from "../field.tsx";
import { previewChangelog } from "./api.ts";

interface Props {
  id: string;
  value: string;
  error: string | null;
  onInput: (value: string) => void;
}

type Preview =
  | { state: "off" }
  | { state: "loading" }
  | { state: "shown"; html: string }
  | { state: "failed"; message: string };

export function ChangelogEditor({ id, value, error, onInput }: Props) {
  const [preview, setPreview] = useState<Preview>({ state: "off" });
  const showPreview = async () => {
    setPreview({ state: "loading" });
    try {
      setPreview({ state: "shown", html: await previewChangelog(value) });
    } catch (failure) {
      setPreview({ state: "failed", message: messageOf(failure, "The preview could not be rendered.") });
    }
  };
  const previewing = preview.state !== "off";

  return (
    <div class="changelog-editor">
      <div class="tabs">
        <button
          type="button"
          class="secondary"
          aria-pressed={!previewing}
          onClick={() => setPreview({ state: "off" })}
        >
          Write
        </button>
        <button type="button" class="secondary" aria-pressed={previewing} onClick={showPreview}>
          Preview
        </button>
      </div>
      {previewing ? (
        <section aria-label="Changelog preview" aria-busy={preview.state === "loading"}>
          {preview.state === "loading" && <p aria-live="polite">Rendering the preview…</p>}
          {preview.state === "failed" && (
            <p class="error" role="alert">
              {preview.message}
            </p>
          )}
          {preview.state === "shown" &&
            (preview.html ? (
              // Sanitised by depot (sanitize-html), as every changelog it shows is.
              <div class="changelog" dir="auto" dangerouslySetInnerHTML={{ __html: preview.html }} />
            ) : (
              <p class="empty">Nothing to preview yet: write the changelog first.</p>
            ))}
          {error && (
            <p id={`${id}-error`} class="field-error">
              {error}
            </p>
          )}
        </section>
      ) : (
        <TextAreaField
          id={id}
          label="Changelog"
          error={error}
          hint="Markdown: what changed, for the people who download it."
          rows={6}
          value={value}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
      )}
    </div>
  );
}
