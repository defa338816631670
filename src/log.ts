import { LOG_LEVELS, type LogLevel } from "./config.ts";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether lines at `level` are written (to skip work for a line nobody reads). */
  enabled(level: Exclude<LogLevel, "silent">): boolean;
}

/** One JSON object per line on stdout, the shape log collectors expect. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => console.log(line),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const emit =
    (lvl: Exclude<LogLevel, "silent">) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LOG_LEVELS.indexOf(lvl) < threshold) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg: message, ...fields }));
    };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    enabled: (lvl) => LOG_LEVELS.indexOf(lvl) >= threshold,
  };
}
