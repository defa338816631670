import { type Context, Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { JwksJson } from "./json.ts";
import { publicJwk } from "./jwk.ts";
import { publishedKeys } from "./keys.ts";

/**
 * Clients may keep the set this long; one that meets an answer signed by a `kid` it does not know
 * fetches it again (a rotation reaches other instances within SIGNING_KEY_REFRESH_SECONDS).
 */
const CACHE_CONTROL = "public, max-age=300";

/** The public keys that verify license answers and files: the active one and those in their grace. */
export const signingKeyRoutes = (ctx: AppContext) => {
  const jwks = async ({ request, set }: Pick<Context, "request" | "set">) => {
    const keys = (await publishedKeys(ctx)).map(publicJwk);
    const etag = `"${Bun.hash(keys.map((key) => key.kid).join(",")).toString(36)}"`;
    set.headers["cache-control"] = CACHE_CONTROL;
    set.headers.etag = etag;
    const known = request.headers.get("if-none-match")?.split(",") ?? [];
    if (known.some((tag) => tag.trim() === etag)) {
      set.status = 304;
      return "";
    }
    return { keys };
  };
  const hooks = answers(
    {
      summary: "The public keys that sign license answers and files (a JWKS; no auth)",
      description:
        "Ed25519 keys as JWKs: the active key first, then retired keys still in their grace period.",
      tags: ["Licenses"],
    },
    { 200: JwksJson, 304: t.String() },
  );
  return new Elysia().get("/.well-known/jwks.json", jwks, hooks).get("/api/v1/keys", jwks, hooks);
};
