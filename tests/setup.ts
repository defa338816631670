// Preloaded before every test file (bunfig.toml): the initial data of the embedded database, which a
// first start unpacks and the PGlite test databases copy, is made once per schema (scripts/initial-data.ts,
// a minute or so) before any test's timeout runs.
import { initialDataArchive } from "../src/db/initial-data.ts";

await initialDataArchive();
