import type { Command } from "./command.ts";

export const healthcheckCommand: Command = {
  name: "healthcheck",
  summary: "exit 0 if /api/health answers 200 (for Docker HEALTHCHECK)",
  usage: "depot healthcheck [--url U]",
  options: { url: { type: "string" } },
  async run(config, values) {
    const url = typeof values.url === "string" ? values.url : `http://127.0.0.1:${config.port}/api/health`;
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
