// The release file: dropped onto the zone or chosen with the picker (the keyboard's way), with its
// name and size shown once chosen.
import { useState } from "preact/hooks";
import { formatBytes } from "../sizes.ts";

interface Props {
  id: string;
  file: File | null;
  error: string | null;
  disabled: boolean;
  onChoose: (file: File | null) => void;
}

export function FileChoice({ id, file, error, disabled, onChoose }: Props) {
  const [over, setOver] = useState(false);
  const describedBy = [`${id}-chosen`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a pointer shortcut; the file input inside is everyone's way
    <div
      class={over ? "drop-zone over" : "drop-zone"}
      data-testid="drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        if (!disabled) setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const dropped = event.dataTransfer?.files[0];
        if (dropped && !disabled) onChoose(dropped);
      }}
    >
      <label for={id}>File</label>
      <input
        id={id}
        type="file"
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(event) => onChoose(event.currentTarget.files?.[0] ?? null)}
      />
      <p id={`${id}-chosen`} class="hint" aria-live="polite">
        {file ? (
          <>
            Chosen:{" "}
            <strong class="file-name" dir="auto">
              {file.name}
            </strong>{" "}
            ({formatBytes(file.size)})
          </>
        ) : (
          "Drop the release file here, or choose it above."
        )}
      </p>
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
