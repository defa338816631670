import { openapi } from "@elysiajs/openapi";
import { FormatRegistry } from "@sinclair/typebox";
import { type AnyElysia, Elysia } from "elysia";
import type { AppContext } from "./context.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import { apiKeyRoutes } from "./features/api-keys/routes.ts";
import { artifactRoutes } from "./features/artifacts/routes.ts";
import { binaryRoutes } from "./features/binaries/routes.ts";
import { downloadRoutes } from "./features/downloads/routes.ts";
import { healthRoutes } from "./features/health/routes.ts";
import { licenseKeyRoutes } from "./features/licenses/key-routes.ts";
import { ownLicenseRoutes } from "./features/licenses/own-routes.ts";
import { productLicenseRoutes, productLicenseSettingsRoutes } from "./features/licenses/product-routes.ts";
import { v1LicenseRoutes } from "./features/licenses/v1-routes.ts";
import { machineKeyRoutes } from "./features/machines/key-routes.ts";
import { ownMachineRoutes } from "./features/machines/own-routes.ts";
import { productMachineRoutes } from "./features/machines/product-routes.ts";
import { v1MachineRoutes } from "./features/machines/v1-routes.ts";
import { notificationRoutes } from "./features/notifications/routes.ts";
import { optionRoutes } from "./features/options/routes.ts";
import { passwordLinkRoutes } from "./features/password-links/routes.ts";
import { policyRoutes } from "./features/policies/routes.ts";
import { publicProductRoutes } from "./features/products/public-routes.ts";
import { productRoutes } from "./features/products/routes.ts";
import { profileRoutes } from "./features/profile/routes.ts";
import { purchaseRoutes } from "./features/purchases/routes.ts";
import { roleRoutes } from "./features/roles/routes.ts";
import { sessionRoutes } from "./features/sessions/routes.ts";
import { setupRoutes } from "./features/setup/routes.ts";
import { setupIsOpen } from "./features/setup/service.ts";
import { signingKeyRoutes } from "./features/signing/routes.ts";
import { statsRoutes } from "./features/stats/routes.ts";
import { stripeRoutes } from "./features/stripe/routes.ts";
import { ownTokenRoutes } from "./features/tokens/own-routes.ts";
import { tokenRoutes } from "./features/tokens/routes.ts";
import { updateRoutes } from "./features/updates/routes.ts";
import { upgradeRoutes } from "./features/updates/upgrade-routes.ts";
import { uploadRoutes } from "./features/uploads/routes.ts";
import { userRoutes } from "./features/users/routes.ts";
import { changelogRoutes } from "./features/versions/changelog-routes.ts";
import { versionRoutes } from "./features/versions/routes.ts";
import { webhookRoutes } from "./features/webhooks/routes.ts";
import { bodyLimit } from "./http/body-limit.ts";
import { jsonBodies } from "./http/body-parser.ts";
import { apiNoStore } from "./http/cache-control.ts";
import { DOCS_PATH, docsUi, scalarOptions } from "./http/docs-ui.ts";
import { errorRenderer } from "./http/error-renderer.ts";
import { methodsAllowedAt } from "./http/method-not-allowed.ts";
import { requestLog } from "./http/request-id.ts";
import { checkingResponses, skipResponseChecks } from "./http/response-checks.ts";
import { metricsRoute } from "./metrics/http.ts";
import { isUuid } from "./validation/ids.ts";

// @elysiajs/openapi re-registers TypeBox's string formats when imported, `uuid` as a validator schema
// built on every check (~7 % of a license validation's CPU, bench/README.md). A regex does the same job.
FormatRegistry.Set("uuid", isUuid);
// The response schemas' timestamps: the one shape toISOString() writes, checked by one regex (the
// general date-time check splits and re-parses every string: ~3 % of a license validation's CPU).
const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/;
FormatRegistry.Set("date-time", (value) => ISO_TIMESTAMP.test(value));

/** Every JSON request body (licenses, admin) is small; 1 MiB leaves room and keeps parsing cheap. */
const MAX_JSON_BODY = 1024 * 1024;
/** Room for multipart framing around the largest release file. */
const MULTIPART_OVERHEAD = 1024 * 1024;
/**
 * Bun's own limit answers 413 with an empty body before any hook runs, so it is set out of the way:
 * `bodyLimit` refuses every declared length over the largest upload with a JSON 413, and each route
 * counts what it reads against its own limit.
 */
const BUN_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * The whole HTTP API, one feature plugin per line. Typed as any Elysia app: nothing needs the routes'
 * types from here, and inferring them through a chain this long is deeper than TypeScript follows.
 */
export function buildApp(ctx: AppContext): AnyElysia {
  const routes: { method: string; path: string; hooks?: { body?: unknown } }[] = [];
  let jsonRoutes: Set<string> | undefined;
  const takesJson = (method: string, route: string) => {
    jsonRoutes ??= new Set(routes.filter((r) => r.hooks?.body).map((r) => `${r.method} ${r.path}`));
    return jsonRoutes.has(`${method} ${route}`);
  };
  const app = new Elysia({
    // Unknown body fields are a 422, not silently dropped; response mappers already emit exact shapes.
    normalize: false,
    serve: { maxRequestBodySize: BUN_BODY_LIMIT },
  })
    .use(
      errorRenderer({
        log: ctx.log,
        allowedMethods: (path: string): string[] => methodsAllowedAt(routes, path),
      }),
    )
    // With ctx.metrics null (no METRICS_TOKEN, no METRICS_PORT) nothing is counted.
    .use(requestLog(ctx.log, ctx.config, ctx.metrics))
    // A hook rather than a plugin: the chain's type is as deep as TypeScript will follow.
    .onRequest(apiNoStore)
    .use(bodyLimit(ctx.config.maxUploadBytes + MULTIPART_OVERHEAD))
    .use(jsonBodies({ maxBytes: MAX_JSON_BODY, takesJson }))
    .use(
      openapi({
        path: DOCS_PATH,
        scalar: scalarOptions,
        // By default a path with a dot is taken for a static file and left out: the Sparkle appcast
        // and the JWKS are operations (the favicon hides itself).
        exclude: { staticFile: false },
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
              sessionCookie: {
                type: "apiKey",
                in: "cookie",
                name: "depot_session",
                description: "Dashboard session from POST /api/auth/sign-in; changes also need X-CSRF-Token",
              },
            },
          },
        },
      }),
    )
    .use(docsUi())
    .use(healthRoutes(ctx))
    .use(binaryRoutes(ctx))
    .use(metricsRoute(ctx))
    .use(sessionRoutes(ctx))
    .use(setupRoutes(ctx))
    .use(userRoutes(ctx))
    .use(passwordLinkRoutes(ctx))
    .use(productRoutes(ctx))
    .use(publicProductRoutes(ctx))
    .use(purchaseRoutes(ctx))
    .use(versionRoutes(ctx))
    .use(artifactRoutes(ctx))
    .use(changelogRoutes(ctx))
    .use(uploadRoutes(ctx))
    .use(licenseKeyRoutes(ctx))
    .use(v1LicenseRoutes(ctx))
    .use(machineKeyRoutes(ctx))
    .use(v1MachineRoutes(ctx))
    .use(productLicenseRoutes(ctx))
    .use(productMachineRoutes(ctx))
    .use(productLicenseSettingsRoutes(ctx))
    .use(policyRoutes(ctx))
    .use(statsRoutes(ctx))
    .use(signingKeyRoutes(ctx))
    .use(notificationRoutes(ctx))
    .use(webhookRoutes(ctx))
    .use(stripeRoutes(ctx))
    .use(roleRoutes(ctx))
    .use(tokenRoutes(ctx))
    .use(ownTokenRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(optionRoutes(ctx))
    .use(ownLicenseRoutes(ctx))
    .use(ownMachineRoutes(ctx))
    .use(downloadRoutes(ctx))
    .use(updateRoutes(ctx))
    .use(upgradeRoutes(ctx))
    .use(profileRoutes(ctx))
    // Last: the dashboard's pages are at a few fixed paths outside /api, /docs and /storage.
    .use(dashboardRoutes({ setupOpen: () => setupIsOpen(ctx) }));
  routes.push(...app.routes);
  // The response schemas document the answers; the tests check every answer against them.
  if (!checkingResponses()) skipResponseChecks(app);
  return app;
}

export type App = ReturnType<typeof buildApp>;
