import { describe, expect, test } from "bun:test";
import { fileNameOf, sha256OfReprDigest } from "../src/cli-client/file-headers.ts";
import { contentDisposition } from "../src/http/file-response.ts";

/** What `depot download` reads from a download's headers: the file name it saves under, and the digest. */

describe("the file name in Content-Disposition", () => {
  test.each([["plugin-1.0.jar"], ["Ünïcode plugin ✓.jar"], ['a "quoted" name.zip']])(
    "what depot sends for %p reads back as a plain name",
    (name) => {
      // depot turns quotes into _ in the ASCII fallback, and keeps them in filename*.
      expect(fileNameOf(contentDisposition(name))).toBe(name);
    },
  );

  test.each([
    ['attachment; filename="../../etc/passwd"', "passwd"],
    ["attachment; filename*=UTF-8''..%2F..%2F.ssh%2Fauthorized_keys", "authorized_keys"],
    ['attachment; filename="C:\\\\Windows\\\\evil.dll"', "evil.dll"],
    ['attachment; filename=".."', null],
    ['attachment; filename="/"', null],
    ['attachment; filename="tab\there.jar"', "tabhere.jar"],
    ["attachment; filename=bare.jar", "bare.jar"],
    ["attachment", null],
  ])("%p is reduced to %p: nothing outside the directory it is saved in", (header, expected) => {
    expect(fileNameOf(header)).toBe(expected);
  });

  test("no header, no name", () => {
    expect(fileNameOf(null)).toBeNull();
  });
});

describe("the SHA-256 in Repr-Digest", () => {
  const hex = new Bun.CryptoHasher("sha256").update("release").digest("hex");
  const base64 = Buffer.from(hex, "hex").toString("base64");

  test("read as hex, also next to other algorithms", () => {
    expect(sha256OfReprDigest(`sha-256=:${base64}:`)).toBe(hex);
    expect(sha256OfReprDigest(`sha-512=:AAAA:, sha-256=:${base64}:`)).toBe(hex);
  });

  test("absent or malformed: null (the download is then checked against what else the server said)", () => {
    expect(sha256OfReprDigest(null)).toBeNull();
    expect(sha256OfReprDigest("sha-512=:AAAA:")).toBeNull();
    expect(sha256OfReprDigest("sha-256=:AAAA:")).toBeNull();
  });
});
