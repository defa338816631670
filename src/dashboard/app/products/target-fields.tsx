// Where a release file runs: the platform and architecture selects of the publish and add-a-file
// forms. Choosing a file sets them to what its name says, read by the table the server and `depot
// publish` use (features/artifacts/file-names.ts); the hint says so, and the vendor may change either.
import { kindPlatform, type Target, targetOf } from "../../../features/artifacts/file-names.ts";
import { SelectField } from "../field.tsx";
import type { Arch, Artifact, Platform } from "../wire.ts";

const PLATFORMS = ["windows", "darwin", "linux", "any"] as const satisfies readonly Platform[];
const ARCHES = ["x86_64", "aarch64", "i686", "armv7", "universal", "any"] as const satisfies readonly Arch[];
export const PLATFORM_NAMES: Record<Platform, string> = {
  windows: "Windows",
  darwin: "macOS",
  linux: "Linux",
  any: "Any platform",
};

export const platformName = (artifact: Pick<Artifact, "platform" | "arch">) =>
  `${PLATFORM_NAMES[artifact.platform]}${artifact.arch === "any" ? "" : ` ${artifact.arch}`}`;

/** What the forms start with before a file is chosen. */
export const NO_TARGET: Target = { platform: "any", arch: "any" };

/** The target a chosen file's name says (`any` for what it does not say), or NO_TARGET for no file. */
export const targetOfFile = (file: File | null): Target => (file ? targetOf(file.name) : NO_TARGET);

interface Props {
  /** The ids are `<id>-platform` and `<id>-arch`. */
  id: string;
  file: File | null;
  value: Target;
  errors: { platform: string | null; arch: string | null };
  disabled: boolean;
  onChange: (target: Target) => void;
}

/** What the hint says of a chosen file: what its name told, and what a feed will make of it. */
function hintOf(file: File, value: Target): string {
  const read = targetOf(file.name);
  const said =
    read.platform === "any" && read.arch === "any"
      ? "The file's name names no platform or architecture"
      : `Read from the file's name: ${platformName(read)}${read.arch === "any" ? ", any architecture" : ""}`;
  const kind = kindPlatform(file.name);
  const effect =
    kind !== null && value.platform !== kind
      ? ` Update feeds offer a file of this kind on ${PLATFORM_NAMES[kind]} only, whatever is chosen here.`
      : value.platform === "any"
        ? " Any platform: every platform's updates offer it."
        : "";
  return `${said}. Change it if that is wrong.${effect}`;
}

export function TargetFields({ id, file, value, errors, disabled, onChange }: Props) {
  return (
    <>
      <SelectField
        id={`${id}-platform`}
        label="Platform"
        value={value.platform}
        error={errors.platform}
        hint={file ? hintOf(file, value) : undefined}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, platform: event.currentTarget.value as Platform })}
      >
        {PLATFORMS.map((platform) => (
          <option key={platform} value={platform}>
            {PLATFORM_NAMES[platform]}
          </option>
        ))}
      </SelectField>
      <SelectField
        id={`${id}-arch`}
        label="Architecture"
        value={value.arch}
        error={errors.arch}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, arch: event.currentTarget.value as Arch })}
      >
        {ARCHES.map((arch) => (
          <option key={arch} value={arch}>
            {arch === "any" ? "Any" : arch}
          </option>
        ))}
      </SelectField>
    </>
  );
}
