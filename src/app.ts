import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { AppContext } from "./context.ts";
import { apiKeyRoutes } from "./features/api-keys/routes.ts";
import { healthRoutes } from "./features/health/routes.ts";
import { licenseRoutes } from "./features/licenses/routes.ts";
import { notificationRoutes } from "./features/notifications/routes.ts";
import { optionRoutes } from "./features/options/routes.ts";
import { productRoutes } from "./features/products/routes.ts";
import { purchaseRoutes } from "./features/purchases/routes.ts";
import { roleRoutes } from "./features/roles/routes.ts";
import { tokenRoutes } from "./features/tokens/routes.ts";
import { userRoutes } from "./features/users/routes.ts";
import { versionRoutes } from "./features/versions/routes.ts";
import { bodyLimit } from "./http/body-limit.ts";
import { errorRenderer } from "./http/errors.ts";
import { methodsAllowedAt } from "./http/method-not-allowed.ts";
import { requestLog } from "./http/request-id.ts";

/** Every JSON request body (licenses, admin) is small; 1 MiB leaves room and keeps parsing cheap. */
const MAX_JSON_BODY = 1024 * 1024;
/** The publish routes, whose JSON form carries a base64 file. */
const PUBLISH_PATH = /^\/api\/products\/[^/]+(?:\/benefits\/[^/]+)?\/versions$/;
/** Room for multipart framing around the largest release file. */
const MULTIPART_OVERHEAD = 1024 * 1024;
/** Bun's hard limit sits above ours so that our JSON 413 answers first (see bodyLimit). */
const BUN_LIMIT_MARGIN = 1024 * 1024;

/** The whole HTTP API, one feature plugin per line. */
export function buildApp(ctx: AppContext) {
  const routes: { method: string; path: string }[] = [];
  const maxBody = ctx.config.maxUploadBytes + MULTIPART_OVERHEAD;
  // Base64 spends four characters on three bytes; the other fields and the JSON around them get 1 MiB.
  const maxBase64Body = Math.ceil(ctx.config.maxJsonUploadBytes / 3) * 4 + MAX_JSON_BODY;
  const app = new Elysia({
    // Unknown body fields are a 422, not silently dropped; response mappers already emit exact shapes.
    normalize: false,
    serve: { maxRequestBodySize: maxBody + BUN_LIMIT_MARGIN },
  })
    .use(
      errorRenderer({
        log: ctx.log,
        allowedMethods: (path: string): string[] => methodsAllowedAt(routes, path),
      }),
    )
    .use(requestLog(ctx.log))
    .use(
      bodyLimit({
        maxBytes: maxBody,
        maxJsonBytes: (path) => (PUBLISH_PATH.test(path) ? maxBase64Body : MAX_JSON_BODY),
      }),
    )
    .use(
      openapi({
        path: "/docs",
        documentation: {
          info: {
            title: "depot",
            version: process.env.npm_package_version ?? "0.1.0",
            description: "Publish releases, hand out license keys, validate them and serve downloads.",
          },
          components: {
            securitySchemes: {
              bearerAuth: {
                type: "http",
                scheme: "bearer",
                description: "Personal access token `id|secret`",
              },
              apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
            },
          },
        },
      }),
    )
    .use(healthRoutes(ctx))
    .use(userRoutes(ctx))
    .use(productRoutes(ctx))
    .use(purchaseRoutes(ctx))
    .use(versionRoutes(ctx))
    .use(licenseRoutes(ctx))
    .use(notificationRoutes(ctx))
    .use(roleRoutes(ctx))
    .use(tokenRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(optionRoutes(ctx));
  routes.push(...app.routes);
  return app;
}

export type App = ReturnType<typeof buildApp>;
