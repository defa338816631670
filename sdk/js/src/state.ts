import { sha256, toHex, utf8 } from "./encoding.js";

/** A verified answer as it came (status, the signed headers, the body bytes), so it is verified again when read. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, base64. */
  body: string;
  /** The nonce its request sent. */
  nonce: string;
}

/**
 * What status() falls back on when depot cannot be reached: per license key (and fingerprint), the
 * last verified validation and the last license file checked out. In memory, and in `dir` when set
 * (one file each, written whole then renamed, so a crash never leaves half of one).
 */
export class StateStore {
  readonly #memory = new Map<string, string>();

  constructor(private readonly dir: string | null) {}

  /** The name things about this product, key and fingerprint are kept under: nothing readable. */
  static async idOf(productId: string, key: string, fingerprint: string | undefined): Promise<string> {
    const text = `${productId}\n${key.trim().toUpperCase()}\n${fingerprint ?? ""}`;
    return toHex(await sha256(utf8(text))).slice(0, 32);
  }

  async keepAnswer(id: string, answer: KeptAnswer): Promise<void> {
    await this.#write(`${id}.answer.json`, JSON.stringify(answer));
  }

  async answer(id: string): Promise<KeptAnswer | null> {
    const text = await this.#read(`${id}.answer.json`);
    if (text === null) return null;
    try {
      return JSON.parse(text) as KeptAnswer;
    } catch {
      return null;
    }
  }

  async keepLicenseFile(id: string, text: string): Promise<void> {
    await this.#write(`${id}.lic`, text);
  }

  licenseFile(id: string): Promise<string | null> {
    return this.#read(`${id}.lic`);
  }

  async #write(name: string, text: string): Promise<void> {
    this.#memory.set(name, text);
    if (this.dir === null) return;
    const { mkdir, rename, writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, name);
    const temporary = `${path}.${toHex(crypto.getRandomValues(new Uint8Array(6)))}.tmp`;
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, path);
  }

  async #read(name: string): Promise<string | null> {
    const kept = this.#memory.get(name);
    if (kept !== undefined || this.dir === null) return kept ?? null;
    const { readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    return readFile(join(this.dir, name), "utf8").catch(() => null);
  }
}
