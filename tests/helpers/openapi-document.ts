// Prints /docs/json as a depot that has just started serves it (tests/openapi-operations.test.ts).
// In a process of its own: Elysia keeps what it adds to the schemas it compiles, and they are shared
// by every app a process builds, so a document built after others in the same process (the suite
// builds hundreds) can differ from the one a server serves: a security entry twice, a response
// schema with `additionalProperties` it did not declare.
import { startTestApp } from "./app.ts";

const app = await startTestApp();
try {
  process.stdout.write(await (await app.request("/docs/json")).text());
} finally {
  await app.close();
}
