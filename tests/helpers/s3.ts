import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
// s3rver's one account; a second key pair on it stands for a bucket-scoped read-only key.
import AWSAccount from "s3rver/lib/models/account.js";

/**
 * A second key s3rver accepts, as S3_PRESIGN_* would name a read-only one (s3rver has no policies,
 * so it can write too: the test shows which key signed a URL, not what the key may do).
 */
export const READER_CREDENTIALS = {
  S3_PRESIGN_ACCESS_KEY_ID: "READER",
  S3_PRESIGN_SECRET_ACCESS_KEY: "reader-secret",
};
AWSAccount.DUMMY_ACCOUNT.createKeyPair(
  READER_CREDENTIALS.S3_PRESIGN_ACCESS_KEY_ID,
  READER_CREDENTIALS.S3_PRESIGN_SECRET_ACCESS_KEY,
);

/** s3rver's fixed credentials: any other access key id is refused (InvalidAccessKeyId). */
export const S3RVER_CREDENTIALS = { S3_ACCESS_KEY_ID: "S3RVER", S3_SECRET_ACCESS_KEY: "S3RVER" };

export interface TestS3 {
  endpoint: string;
  port: number;
  bucket: string;
  /** The variables that point depot at this bucket, under `prefix`. */
  env(prefix?: string): Record<string, string>;
  /** A client of our own, to look at the bucket from outside depot. */
  client: Bun.S3Client;
  /** Every object key in the bucket. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server in this process: s3rver (the S3 REST API over files in a temporary
 * directory), on a free port of 127.0.0.1, with one empty bucket.
 */
export async function startS3(bucket = "releases"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "depot-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new Bun.S3Client({
    endpoint,
    bucket,
    region: "us-east-1",
    accessKeyId: S3RVER_CREDENTIALS.S3_ACCESS_KEY_ID,
    secretAccessKey: S3RVER_CREDENTIALS.S3_SECRET_ACCESS_KEY,
  });
  return {
    endpoint,
    port,
    bucket,
    client,
    env: (prefix = "") => ({
      STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ""}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      ...S3RVER_CREDENTIALS,
    }),
    async keys() {
      const listed = await client.list({ maxKeys: 1000 });
      return (listed.contents ?? []).map((entry) => entry.key).sort();
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
