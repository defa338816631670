import { DepotClient } from "../cli-client/depot-client.ts";
import { type Command, printResult, UsageError } from "./command.ts";
import { resolveServer, retryPolicy } from "./connection.ts";
import { loginFile, readLogin, removeLogin, writeLogin } from "./login-store.ts";
import { readStdinLine } from "./password-input.ts";

type Values = Record<string, string | boolean | string[] | undefined>;

/** The token: `--with-token` reads stdin's first line (keeping it out of the process list), else DEPOT_TOKEN. */
async function tokenToStore(values: Values): Promise<string> {
  if (values["with-token"] === true) {
    const line = (await readStdinLine())?.trim();
    if (!line) throw new UsageError("expected the token on stdin (one line)", false);
    return line;
  }
  const variable = process.env.DEPOT_TOKEN?.trim();
  if (variable) return variable;
  throw new UsageError(
    "no token: pipe it in with --with-token (depot token:create prints one), or set DEPOT_TOKEN",
  );
}

export const loginCommand: Command = {
  name: "login",
  summary: "store a server and a token for publish, versions and download (like gh auth login)",
  usage: "depot login [--server URL] [--with-token] [--json]",
  details:
    "--server defaults to DEPOT_URL, then to the server of the last login.\n" +
    '--with-token reads the token from stdin\'s first line: `echo "$TOKEN" | depot login --server URL\n' +
    "--with-token`; without it, DEPOT_TOKEN. The token is checked against the server first, then kept in\n" +
    "the platform's config directory (Linux: $XDG_CONFIG_HOME/depot or ~/.config/depot; macOS:\n" +
    "~/Library/Application Support/depot; Windows: %APPDATA%\\depot; DEPOT_CONFIG_DIR overrides), in a\n" +
    "file only you may read (0600). --server/--token and DEPOT_URL/DEPOT_TOKEN still win, and the token is\n" +
    "only sent to the server it was stored for. `depot logout` removes it.",
  client: true,
  options: { server: { type: "string" }, "with-token": { type: "boolean" }, json: { type: "boolean" } },
  async run(_config, values) {
    // --server, else DEPOT_URL, else the server of the last login (logging in again with a new token).
    const server = resolveServer(values, process.env);
    const token = await tokenToStore(values);
    // A token the server refuses is not stored: 401 exits 1 with the server's word, as publish would.
    const client = new DepotClient(
      server,
      { kind: "token", token, from: "--token" },
      retryPolicy(process.env),
    );
    await client.json("/api/tokens?per_page=1");
    const file = writeLogin(process.env, { server, token });
    printResult(
      values.json === true,
      { server, file },
      `Logged in to ${server}; the token is kept in ${file}.`,
    );
    return 0;
  },
};

export const logoutCommand: Command = {
  name: "logout",
  summary: "forget the server and token depot login stored",
  usage: "depot logout",
  client: true,
  options: {},
  async run() {
    const login = readLogin(process.env);
    const file = loginFile(process.env);
    if (!removeLogin(process.env)) {
      process.stdout.write("Not logged in.\n");
      return 0;
    }
    process.stdout.write(`Logged out of ${login?.server}; removed ${file}.\n`);
    return 0;
  },
};
