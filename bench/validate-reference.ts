// The reference for bench/validate.ts (bench/README.md, issue 4): the least a server can do to answer
// `POST /api/v1/licenses/validate` on this machine. A bare Bun.serve that parses the JSON body, runs one
// postgres.js `SELECT … FROM licenses WHERE key = $1` and returns a small JSON. No framework, no
// logging, no IP bookkeeping, no response schema: what is left is Bun's HTTP server, JSON and one
// round trip to PostgreSQL.
//
//   DATABASE_URL=postgres://… PORT=… [POOL_MAX=10] bun bench/validate-reference.ts
//
// The pool has depot's size (src/db/client.ts openPostgres: max 10) and the same patched postgres.js
// (patches/postgres+3.4.9.patch: without it both slow down for as long as the load lasts), so the
// ratio compares the servers, not a driver fix. The tagged template is postgres.js's ordinary use,
// which prepares the statement once per connection (named statement).
// Prints one line `listening <port>` on stdout once it accepts connections; GET /health answers 200.
import { serveValidateReference } from "./lib/validate-reference-server.ts";

serveValidateReference((status, body) => Response.json(body, { status }));
