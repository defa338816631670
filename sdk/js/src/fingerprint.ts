import { sha256, toHex, utf8 } from "./encoding.js";

export interface FingerprintOptions {
  /** Use this id instead of the operating system's (e.g. a random id the app stored on first start). */
  machineId?: string;
}

/**
 * A stable, private id of this machine for one product: the hex SHA-256 of `depot:<productId>:<id>`,
 * where the id is the operating system's (Windows MachineGuid, macOS IOPlatformUUID, Linux
 * /etc/machine-id then /var/lib/dbus/machine-id). Hashing with the product id means two vendors never
 * see the same value, and the value reveals nothing about the machine. Throws when no id is found.
 */
export async function machineFingerprint(
  productId: string | number | bigint,
  options: FingerprintOptions = {},
): Promise<string> {
  const id = (options.machineId ?? (await operatingSystemMachineId())).trim();
  if (id === "") throw new Error("the machine id is empty");
  return toHex(await sha256(utf8(`depot:${productId}:${id}`)));
}

/** The operating system's id of this machine, trimmed. */
export async function operatingSystemMachineId(): Promise<string> {
  const { platform } = await import("node:process");
  if (platform === "win32") {
    // /reg:64: the 64-bit view, also from a 32-bit process (whose view would miss the value).
    const output = await run("reg", [
      "query",
      "HKLM\\SOFTWARE\\Microsoft\\Cryptography",
      "/v",
      "MachineGuid",
      "/reg:64",
    ]);
    const guid = /MachineGuid\s+REG_SZ\s+(\S+)/.exec(output)?.[1];
    if (guid) return guid;
    throw new Error("no MachineGuid in HKLM\\SOFTWARE\\Microsoft\\Cryptography");
  }
  if (platform === "darwin") {
    const output = await run("ioreg", ["-rd1", "-c", "IOPlatformExpertDevice"]);
    const uuid = /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(output)?.[1];
    if (uuid) return uuid;
    throw new Error("no IOPlatformUUID in ioreg's IOPlatformExpertDevice");
  }
  const { readFile } = await import("node:fs/promises");
  for (const path of ["/etc/machine-id", "/var/lib/dbus/machine-id"]) {
    const id = (await readFile(path, "utf8").catch(() => "")).trim();
    if (id !== "") return id;
  }
  throw new Error(
    "no machine id: /etc/machine-id and /var/lib/dbus/machine-id are missing or empty (pass machineId)",
  );
}

async function run(command: string, args: string[]): Promise<string> {
  const { execFile } = await import("node:child_process");
  return new Promise((done, failed) => {
    execFile(command, args, { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      if (error) failed(new Error(`${command} failed: ${error.message}`));
      else done(stdout);
    });
  });
}
