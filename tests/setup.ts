// Preloaded before every test file (bunfig.toml): the initial data of the embedded database, which a
// first start unpacks and the PGlite test databases copy, is made once per schema (scripts/initial-data.ts,
// a minute or so) before any test's timeout runs.
import { initialDataArchive } from "../src/db/initial-data.ts";
import { CHECK_RESPONSES_VARIABLE } from "../src/http/response-checks.ts";

// Every answer of every app a test builds, and of every server it starts (they inherit this), is
// checked against its route's response schema: a schema bug fails the test (src/http/response-checks.ts).
process.env[CHECK_RESPONSES_VARIABLE] = "1";

await initialDataArchive();
