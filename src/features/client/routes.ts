import { Elysia } from "elysia";
import pkg from "../../../package.json" with { type: "json" };
import { isCompiledBinary } from "../../compiled.ts";
import { AppError } from "../../errors.ts";
import { refusals } from "../../http/schemas.ts";

/**
 * The depot binary itself, so that a CI job can fetch the client (`depot publish`, `download`,
 * `versions`) from the installation it publishes to, at the server's own version (docs/vendors.md, Publishing
 * from CI). It is built for the server's OS and CPU, which the headers name. Run from the sources
 * there is no binary to hand out.
 */
export const clientRoutes = () =>
  new Elysia().get(
    "/client/depot",
    () => {
      if (!isCompiledBinary) {
        throw new AppError(404, "The depot client is served only by the compiled depot binary.");
      }
      return new Response(Bun.file(process.execPath), {
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": 'attachment; filename="depot"',
          "cache-control": "public, max-age=300",
          "x-depot-version": pkg.version,
          "x-depot-platform": `${process.platform}-${process.arch}`,
        },
      });
    },
    {
      response: refusals(404),
      detail: {
        tags: ["Client"],
        summary: "The depot binary this server runs, as a client for CI (publish, download, versions)",
        description: "No auth. `X-Depot-Platform` (e.g. linux-x64) and `X-Depot-Version` say what it is.",
      },
    },
  );
