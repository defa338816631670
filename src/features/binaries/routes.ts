import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { releaseChecksums } from "./checksums.ts";
import { asDownload, CLIENT_PLATFORMS, clientBinaryFor } from "./service.ts";

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
 * name platform, version and SHA-256. Beside them, the release's signed SHA256SUMS, which
 * install.sh trusts rather than a header from the same server (features/binaries/checksums.ts).
 */
export const binaryRoutes = (ctx: AppContext) =>
  new Elysia({ tags: ["Client"] })
    .get("/client/depot", ({ query }) => asDownload(clientBinaryFor(ctx.config, query.platform)), {
      query: ClientQuery,
      ...answers(
        {
          summary: "A depot binary as a client for CI (publish, download, versions) or to install",
          description:
            "No auth. `X-Depot-Platform` (e.g. linux-x64), `X-Depot-Version` and `X-Depot-Sha256` say what it is. " +
            "Other platforms than the server's are served when the operator put them in CLIENT_BINARIES_DIR.",
        },
        {},
        404,
        422,
      ),
    })
    // What scripts/install.sh --server checks the binary with: the release's own files.
    .get("/client/SHA256SUMS", () => releaseChecksums(ctx.config, "SHA256SUMS"), {
      ...answers(
        {
          summary: "The release's SHA256SUMS, from CLIENT_BINARIES_DIR",
          description:
            "No auth. The SHA-256 of each `depot-<platform>` binary of the release, in `sha256sum` format.",
        },
        {},
        404,
      ),
    })
    .get("/client/SHA256SUMS.minisig", () => releaseChecksums(ctx.config, "SHA256SUMS.minisig"), {
      ...answers(
        {
          summary: "The release's signature of SHA256SUMS, from CLIENT_BINARIES_DIR",
          description:
            "No auth. minisign's format, made by the release key (`npm run build:all` with DEPOT_RELEASE_KEY_FILE); " +
            "scripts/install.sh checks it against the public key it pins.",
        },
        {},
        404,
      ),
    });
