// Runs the documentation's runnable examples against a depot binary, so the docs cannot drift.
//
//   bun scripts/check-docs.ts dist/depot [FILE.md ...]      (default: README.md and docs/**/*.md)
//
// A runnable example is a ```console block: lines starting with `$ ` are commands (a line ending in
// `\` goes on), every other line is the output the command must print (stdout and stderr together).
// In the output `…` stands for any text within a line, and a line that is only `…` for any number of
// lines; a command must exit 0 unless its output ends with `[exit N]`. Other code blocks are prose,
// but a shell block (```sh, ```bash, ```shell) that cannot run here says so on the line above it,
// `<!-- not run: why -->`, with the why in the page's text too (see notRunShellBlocksOf).
//
// Each file runs on its own: a new empty directory, `depot serve` started there by this script as the
// reader started it (on its defaults: http://localhost:8080, the embedded database in ./data), `depot`
// on PATH, and one shell for all of the file's blocks in order, so a variable set in one block is
// there in the next. A page that starts `depot serve` itself, with settings of its own (docs/stripe.md
// does, with its webhook secret and a local SMTP server), says so on a line of its own,
// `<!-- check-docs: the page starts depot serve -->`, and this script then starts none. Whatever the
// page's commands leave running in the background is stopped when the page is done.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

type Command = { line: number; text: string; expected: string[] };

const root = resolve(import.meta.dir, "..");

/** The commands of a markdown file's console blocks, with the output each must print. */
export function commandsOf(markdown: string): Command[] {
  const commands: Command[] = [];
  const lines = markdown.split("\n");
  let inConsole = false;
  let inOther = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (!inConsole && !inOther && line.startsWith("```")) {
      inConsole = line.trim() === "```console";
      inOther = !inConsole;
      continue;
    }
    if (line.startsWith("```")) {
      inConsole = inOther = false;
      continue;
    }
    if (!inConsole) continue;
    if (line.startsWith("$ ")) {
      const command: Command = { line: index + 1, text: line.slice(2), expected: [] };
      while (command.text.endsWith("\\") && index + 1 < lines.length) {
        command.text = `${command.text}\n${lines[++index] ?? ""}`;
      }
      commands.push(command);
    } else {
      commands.at(-1)?.expected.push(line);
    }
  }
  return commands;
}

/** The shell blocks (```sh, ```bash, ```shell) of a markdown file: each fence's line, and whether it
 * is marked `<!-- not run: why -->` on the line above it. A page meant to run top to bottom has none
 * unmarked: what it shows either runs as a console block or says why it cannot. */
export function shellBlocksOf(markdown: string): { line: number; marked: boolean }[] {
  const blocks: { line: number; marked: boolean }[] = [];
  const lines = markdown.split("\n");
  let inBlock = false;
  for (let index = 0; index < lines.length; index++) {
    // A fence indented under a list item is a block too (and, not being run, must be marked).
    const line = (lines[index] ?? "").trimStart();
    if (!line.startsWith("```")) continue;
    if (inBlock) {
      inBlock = false;
      continue;
    }
    inBlock = true;
    if (["sh", "bash", "shell"].includes(line.slice(3).trim())) {
      blocks.push({ line: index + 1, marked: /^<!-- not run: .+ -->$/.test(lines[index - 1]?.trim() ?? "") });
    }
  }
  return blocks;
}

/** The line by which a page says that it starts `depot serve` itself (see the header). */
export const STARTS_ITS_OWN_SERVER = "<!-- check-docs: the page starts depot serve -->";

export const startsItsOwnServer = (markdown: string) =>
  markdown.split("\n").some((line) => line.trim() === STARTS_ITS_OWN_SERVER);

/** Whether the printed lines match the expected ones, where `…` is any text and a `…` line any lines. */
export function matches(expected: string[], actual: string[]): boolean {
  const [first, ...rest] = expected;
  if (first === undefined) return actual.length === 0;
  if (first.trim() === "…") {
    for (let skip = 0; skip <= actual.length; skip++) if (matches(rest, actual.slice(skip))) return true;
    return false;
  }
  const [line, ...others] = actual;
  if (line === undefined) return false;
  const pattern = first
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${pattern}$`).test(line.trimEnd()) && matches(rest, others);
}

/** The examples talk to depot where a reader's would be: http://localhost:8080, its default. */
const PORT = 8080;

async function checkPortFree() {
  try {
    const probe = Bun.serve({ port: PORT, hostname: "0.0.0.0", fetch: () => new Response() });
    await probe.stop(true);
  } catch {
    throw new Error(`port ${PORT} is in use: the examples talk to depot at http://localhost:${PORT}`);
  }
}

async function checkFile(
  binary: string,
  file: string,
  commands: Command[],
  ownServer: boolean,
): Promise<string[]> {
  const home = mkdtempSync(join(tmpdir(), "depot-docs-"));
  const bin = join(home, ".bin");
  mkdirSync(bin);
  symlinkSync(binary, join(bin, "depot"));
  await checkPortFree();
  const url = `http://localhost:${PORT}`;
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    TMPDIR: tmpdir(),
    LANG: "C.UTF-8",
    DEPOT_URL: url,
  };
  // Its log goes to files beside the reader's: a pipe nobody reads would stop it once full.
  const server = ownServer
    ? null
    : Bun.spawn([binary, "serve"], {
        cwd: home,
        env,
        stdout: Bun.file(join(home, ".serve.log")),
        stderr: Bun.file(join(home, ".serve.err")),
      });
  const failures: string[] = [];
  // The shell leads a process group of its own (setsid), which holds whatever its commands start in
  // the background (a depot serve, an SMTP server): all of it is stopped at the end, pass or fail.
  let shell: ReturnType<typeof spawnShell> | null = null;
  try {
    if (server) await waitForHealth(url);
    shell = spawnShell(home, env);
    const output = outputReader(shell.stdout);
    for (const command of commands) {
      const marker = `__depot_docs_${crypto.randomUUID()}__`;
      shell.stdin.write(`{ ${command.text}\n} </dev/null 2>&1; printf '\\n${marker} %d\\n' $?\n`);
      await shell.stdin.flush();
      const printed = await output.until(marker);
      const code = Number(printed.status);
      const lines = printed.text.replace(/\n$/, "").split("\n");
      if (lines.length === 1 && lines[0] === "") lines.pop();
      const expected = [...command.expected];
      while (expected.length && expected.at(-1)?.trim() === "") expected.pop();
      const exit = /^\[exit (\d+)\]$/.exec(expected.at(-1) ?? "");
      if (exit) expected.pop();
      const wantedCode = exit ? Number(exit[1]) : 0;
      if (code !== wantedCode || !matches(expected, lines)) {
        failures.push(
          `${relative(root, file)}:${command.line}: $ ${command.text}\n` +
            `  expected (exit ${wantedCode}):\n${indent(expected)}\n  got (exit ${code}):\n${indent(lines)}`,
        );
        break; // the commands after it build on this one
      }
    }
    shell.stdin.end();
  } catch (error) {
    failures.push(`${relative(root, file)}: ${(error as Error).message}`);
  } finally {
    if (shell) await stopGroup(shell);
    server?.kill();
    await server?.exited;
    if (ownServer) await waitForPortFree();
    rmSync(home, { recursive: true, force: true });
  }
  return failures;
}

function spawnShell(home: string, env: Record<string, string>) {
  return Bun.spawn(["setsid", "bash", "--noprofile", "--norc"], {
    cwd: home,
    env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Stops the shell and everything it started: TERM to its process group, KILL after 10 s. */
async function stopGroup(shell: ReturnType<typeof spawnShell>) {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-shell.pid, name);
    } catch {} // the group is gone already
  };
  signal("SIGTERM");
  const stopped = await Promise.race([shell.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
  if (!stopped) signal("SIGKILL");
  // A background depot serve outlives bash by its shutdown: wait for the group to be empty.
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      process.kill(-shell.pid, 0);
    } catch {
      return;
    }
    await Bun.sleep(100);
  }
  signal("SIGKILL");
}

/** A page's own depot serve is gone once its port is free again, for the next page. */
async function waitForPortFree() {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await checkPortFree();
      return;
    } catch {
      await Bun.sleep(100);
    }
  }
}

const indent = (lines: string[]) => lines.map((line) => `    | ${line}`).join("\n");

async function waitForHealth(url: string) {
  // Generous: a busy CI machine may take a while to start it and migrate the embedded database.
  for (let attempt = 0; attempt < 1200; attempt++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`depot serve did not answer ${url}/api/health within 120 s`);
}

/** Reads a stream up to each marker line, giving what came before it and the status after it. */
function outputReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async until(marker: string): Promise<{ text: string; status: string }> {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const at = buffer.indexOf(`\n${marker} `);
        const end = at >= 0 ? buffer.indexOf("\n", at + 1 + marker.length) : -1;
        if (at >= 0 && end >= 0) {
          const text = buffer.slice(0, at);
          const status = buffer.slice(at + 2 + marker.length, end);
          buffer = buffer.slice(end + 1);
          return { text, status };
        }
        if (Date.now() > deadline) throw new Error("a command ran for over 2 minutes");
        const { value, done } = await reader.read();
        if (done) throw new Error("the shell ended");
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

if (import.meta.main) {
  const [binary, ...fileArgs] = process.argv.slice(2);
  if (!binary) {
    console.error("usage: bun scripts/check-docs.ts BINARY [FILE.md ...]");
    process.exit(2);
  }
  const files = fileArgs.length
    ? fileArgs.map((file) => resolve(file))
    : ["README.md", ...new Bun.Glob("docs/**/*.md").scanSync({ cwd: root })].map((file) => join(root, file));
  let checked = 0;
  const failures: string[] = [];
  for (const file of files) {
    const markdown = readFileSync(file, "utf8");
    const commands = commandsOf(markdown);
    if (!commands.length) continue;
    checked += commands.length;
    const failed = await checkFile(resolve(binary), file, commands, startsItsOwnServer(markdown));
    console.log(`${failed.length ? "FAIL" : "ok  "} ${relative(root, file)} (${commands.length} commands)`);
    failures.push(...failed);
  }
  for (const failure of failures) console.error(`\n${failure}`);
  console.log(`\n${checked} documented commands run, ${failures.length} failed`);
  process.exit(failures.length ? 1 : 0);
}
