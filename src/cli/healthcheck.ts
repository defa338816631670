import { MAX_ERROR_BYTES, readAtMost } from "../cli-client/body-limits.ts";
import { type Command, UsageError } from "./command.ts";

const HEALTH_PATH = "/api/health";
const READY_PATH = "/api/health/ready";

export const healthcheckCommand: Command = {
  name: "healthcheck",
  summary: "exit 0 if BASE_URL/api/health (--ready: /api/health/ready) answers 200 (for Docker HEALTHCHECK)",
  usage: "depot healthcheck [--ready] [--url BASE_URL]",
  details: [
    "--ready asks readiness (database, migrations, release store, job runner) instead of liveness;",
    "a 503 prints the failing checks.",
    "--url is the server's base URL (http://host:8080; /api/health is appended) or the full health URL",
    "(http://host:8080/api/health). Without it: http://127.0.0.1:$PORT. Writes nothing to disk.",
  ].join("\n"),
  options: { url: { type: "string" }, ready: { type: "boolean" } },
  async run(config, values) {
    const path = values.ready === true ? READY_PATH : HEALTH_PATH;
    const url =
      typeof values.url === "string" ? healthUrl(values.url, path) : `http://127.0.0.1:${config.port}${path}`;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (response.status === 200) return 0;
      process.stderr.write(`unhealthy: ${url} answered ${response.status}${await failingChecks(response)}\n`);
    } catch (error) {
      process.stderr.write(`unhealthy: ${url}: ${(error as Error).message}\n`);
    }
    return 1;
  },
};

/** ` (storage: not writable (ENOTDIR))` from a readiness 503, so Docker's health log says what failed. */
async function failingChecks(response: Response): Promise<string> {
  const bytes = await readAtMost(response, MAX_ERROR_BYTES).catch(() => null);
  const body = (await new Response(bytes).json().catch(() => null)) as {
    checks?: Record<string, unknown>;
  } | null;
  if (!body?.checks || typeof body.checks !== "object") return "";
  const failing = Object.entries(body.checks).filter(([, result]) => result !== "ok");
  return failing.length === 0 ? "" : ` (${failing.map(([name, result]) => `${name}: ${result}`).join(", ")})`;
}

/**
 * The health endpoint for `--url`: a base URL gets `path` appended; a URL already ending in
 * /api/health or /api/health/ready is taken as the base of the health routes and gets `path` instead.
 */
export function healthUrl(raw: string, path = HEALTH_PATH): string {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UsageError(`--url must be an http(s) URL, got "${raw}"`);
  }
  const trimmed = url.pathname.replace(/\/+$/, "");
  const base = trimmed.endsWith(READY_PATH)
    ? trimmed.slice(0, -READY_PATH.length)
    : trimmed.endsWith(HEALTH_PATH)
      ? trimmed.slice(0, -HEALTH_PATH.length)
      : trimmed;
  url.pathname = `${base}${path}`;
  return url.toString();
}
