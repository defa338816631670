import { type Command, UsageError } from "./command.ts";

const HEALTH_PATH = "/api/health";

export const healthcheckCommand: Command = {
  name: "healthcheck",
  summary: "exit 0 if BASE_URL/api/health answers 200 (for Docker HEALTHCHECK)",
  usage: "depot healthcheck [--url BASE_URL]",
  details: [
    "--url is the server's base URL (http://host:8080; /api/health is appended) or the full health URL",
    "(http://host:8080/api/health). Without it: http://127.0.0.1:$PORT. Writes nothing to disk.",
  ].join("\n"),
  options: { url: { type: "string" } },
  async run(config, values) {
    const url =
      typeof values.url === "string"
        ? healthUrl(values.url)
        : `http://127.0.0.1:${config.port}${HEALTH_PATH}`;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (response.status === 200) return 0;
      process.stderr.write(`unhealthy: ${url} answered ${response.status}\n`);
    } catch (error) {
      process.stderr.write(`unhealthy: ${url}: ${(error as Error).message}\n`);
    }
    return 1;
  },
};

/** The health endpoint for `--url`: a base URL gets /api/health appended, a URL already ending in it is kept. */
export function healthUrl(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UsageError(`--url must be an http(s) URL, got "${raw}"`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith(HEALTH_PATH) ? path : `${path}${HEALTH_PATH}`;
  return url.toString();
}
