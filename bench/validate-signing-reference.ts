// The signing reference for bench/validate.ts (bench/README.md, Round three): bench/validate-reference.ts
// plus what every validate answer of depot's carries, an RFC 9530 Content-Digest and an Ed25519 RFC 9421
// signature over the same components ("@status", "content-type", "content-digest"), made by depot's own
// signResponseHeaders with a key generated at start. Still no framework, no logging, no IP bookkeeping,
// no response schema: Bun.serve, JSON, one round trip to PostgreSQL and the signature.
//
//   DATABASE_URL=postgres://… PORT=… [POOL_MAX=10] bun bench/validate-signing-reference.ts
//
// The same pool size and patched postgres.js as the bare reference; prints `listening <port>` once it
// accepts connections; GET /health answers 200.
import { signedJson } from "./lib/reference-signature.ts";
import { serveValidateReference } from "./lib/validate-reference-server.ts";

serveValidateReference(signedJson);
