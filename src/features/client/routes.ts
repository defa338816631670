import { Elysia, t } from "elysia";
import pkg from "../../../package.json" with { type: "json" };
import type { AppContext } from "../../context.ts";
import { AppError, Invalid } from "../../errors.ts";
import { refusals } from "../../http/schemas.ts";
import { CLIENT_PLATFORMS, findClientBinary, isClientPlatform, sha256Of } from "./binaries.ts";

const ClientQuery = t.Object({
  platform: t.Optional(
    t.String({ description: `one of ${CLIENT_PLATFORMS.join(", ")}; default: the server's own` }),
  ),
});

/**
 * The depot binary, so that a CI job can fetch the client (`depot publish`, `download`, `versions`)
 * from the installation it publishes to, at the server's own version (docs/vendors.md, Publishing from CI),
 * and scripts/install.sh can install it. Without `platform` it is the binary this server runs;
 * with one, that platform's from CLIENT_BINARIES_DIR when the operator put it there. The headers
 * name platform, version and SHA-256.
 */
export const clientRoutes = (ctx: AppContext) =>
  new Elysia().get(
    "/client/depot",
    async ({ query }) => {
      const asked = query.platform ?? null;
      if (asked !== null && !isClientPlatform(asked)) {
        throw new Invalid({ platform: [`The platform must be one of ${CLIENT_PLATFORMS.join(", ")}.`] });
      }
      const binary = findClientBinary(ctx.config, asked);
      if (!binary) {
        throw new AppError(
          404,
          asked === null
            ? "The depot client is served only by the compiled depot binary."
            : `This depot carries no binary for ${asked}.`,
        );
      }
      return new Response(Bun.file(binary.path), {
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": `attachment; filename="${binary.fileName}"`,
          "cache-control": "public, max-age=300",
          "x-depot-version": pkg.version,
          "x-depot-platform": binary.platform,
          "x-depot-sha256": await sha256Of(binary.path),
        },
      });
    },
    {
      query: ClientQuery,
      response: refusals(404, 422),
      detail: {
        tags: ["Client"],
        summary: "A depot binary as a client for CI (publish, download, versions) or to install",
        description:
          "No auth. `X-Depot-Platform` (e.g. linux-x64), `X-Depot-Version` and `X-Depot-Sha256` say what it is. " +
          "Other platforms than the server's are served when the operator put them in CLIENT_BINARIES_DIR.",
      },
    },
  );
