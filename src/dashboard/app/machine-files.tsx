// What a customer's and a vendor's machine lists share: a machine's label, until when its license
// file holds its seat, and the license file an offline activation made, ready to download.
import { formatDate } from "./dates.ts";
import type { OfflineFile } from "./wire.ts";

interface MachineNames {
  name: string | null;
  hostname: string | null;
  fingerprint: string;
}

export const machineLabel = (machine: MachineNames) =>
  machine.name ?? machine.hostname ?? machine.fingerprint;

/** Until when the machine's license file works offline; null when it has none still valid. */
export const fileValidUntil = (machine: { file_expires_at: string | null }) =>
  machine.file_expires_at !== null && Date.parse(machine.file_expires_at) > Date.now()
    ? machine.file_expires_at
    : null;

/** The machine an offline activation made, with its license file to download and how long it lasts. */
export function OfflineFileReady({ file, licenseId }: { file: OfflineFile; licenseId: string }) {
  return (
    <p aria-live="polite">
      <bdi>{machineLabel(file.machine)}</bdi> is activated.{" "}
      <button type="button" class="secondary" onClick={() => save(file, licenseId)}>
        Download its license file
      </button>{" "}
      <span class="hint">
        (valid until{" "}
        <time dateTime={file.license_file_expires_at}>{formatDate(file.license_file_expires_at)}</time>)
      </span>
    </p>
  );
}

/** Saves the file through a blob URL: same-origin, so the page's Content-Security-Policy allows it. */
function save(file: OfflineFile, licenseId: string) {
  const url = URL.createObjectURL(new Blob([file.license_file], { type: "application/x-pem-file" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `depot-license-${licenseId}-${file.machine.id}.lic`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
