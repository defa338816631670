import type { Logger } from "../log.ts";
import { errorFields } from "../log-errors.ts";

/**
 * Runs `task` now and then every `intervalMs` in the background (a housekeeping sweep); a failure is
 * logged at `warn` as `failed` says and the next round tries again. Returns the function that stops it.
 */
export function everyInterval(
  log: Logger,
  intervalMs: number,
  failed: string,
  task: () => Promise<void>,
): () => void {
  const round = async () => {
    try {
      await task();
    } catch (error) {
      log.warn(failed, { error: errorFields(error) });
    }
  };
  void round();
  const timer = setInterval(() => void round(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
