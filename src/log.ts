import { LOG_LEVELS, type LogLevel } from "./config.ts";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether lines at `level` are written (to skip work for a line nobody reads). */
  enabled(level: Exclude<LogLevel, "silent">): boolean;
  /**
   * An `info` line whose fields are already JSON: `fields` is what goes between the braces after
   * `msg` (`"a":1,"b":"x"`). For the line written per request, built as one string instead of an
   * object spread and stringified (bench/README.md "Round three"); the line is the same.
   */
  infoFields(message: string, fields: string): void;
}

/**
 * Lines for stdout, written in one batch every few milliseconds instead of one write each: a busy
 * server logs a line per request, and a write per line was a sizeable share of a cheap request's CPU
 * (bench/README.md). A batch per turn of the event loop was not enough: Bun answers about one request
 * per turn, so that still wrote once per request. What is buffered is written before the process
 * exits; a process killed with SIGKILL loses at most the last few milliseconds of lines.
 */
function stdoutLines(): (line: string) => void {
  const sink = Bun.stdout.writer();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    sink.flush();
  };
  process.on("exit", flush);
  return (line) => {
    sink.write(`${line}\n`);
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, FLUSH_AFTER_MS);
    }
  };
}

/** How long a log line may wait for others to share its write. */
const FLUSH_AFTER_MS = 10;

let stdout: ((line: string) => void) | undefined;

/** One JSON object per line on stdout, the shape log collectors expect. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => {
    stdout ??= stdoutLines();
    stdout(line);
  },
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const emit =
    (lvl: Exclude<LogLevel, "silent">) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LOG_LEVELS.indexOf(lvl) < threshold) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg: message, ...fields }));
    };
  const infoEnabled = LOG_LEVELS.indexOf("info") >= threshold;
  return {
    infoFields: (message, fields) => {
      if (!infoEnabled) return;
      write(
        `{"time":"${new Date().toISOString()}","level":"info","msg":${JSON.stringify(message)},${fields}}`,
      );
    },
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    enabled: (lvl) => LOG_LEVELS.indexOf(lvl) >= threshold,
  };
}
