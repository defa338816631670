/** How often the bar is redrawn on a terminal, and how often a plain line is written elsewhere. */
const REDRAW_MS = 100;
const PLAIN_LINE_MS = 5000;

export interface ProgressOptions {
  /** Bytes already there when this run began (a resumed download): done, but not part of the speed. */
  done?: number;
  /**
   * Without a terminal, write a plain line now and then (and at the end) instead of nothing: for a
   * download a CI log should show, not for a backup whose summary line says it all.
   */
  plainLines?: boolean;
}

/**
 * Progress on stderr: on a terminal a one-line bar with speed and time left, redrawn at most ten
 * times a second; otherwise nothing, or with `plainLines` a line every few seconds, so piped or
 * redirected output stays free of carriage returns.
 */
export class Progress {
  readonly #terminal = process.stderr.isTTY === true;
  readonly #plainLines: boolean;
  #done: number;
  /** Where the speed is measured from: the bytes done and the time when this run (or a restart) began. */
  #from: { done: number; at: number };
  #drawnAt = 0;
  /** The length of the bar on screen, so a shorter one can blank what it would leave behind. */
  #drawnLength = 0;
  #lineAt: number;

  constructor(
    private readonly label: string,
    private readonly total: number,
    options: ProgressOptions = {},
  ) {
    this.#done = options.done ?? 0;
    this.#plainLines = options.plainLines === true && !this.#terminal;
    this.#from = { done: this.#done, at: Date.now() };
    this.#lineAt = Date.now();
  }

  advance(bytes: number) {
    this.#done += bytes;
    const now = Date.now();
    if (this.#terminal && now - this.#drawnAt >= REDRAW_MS) {
      this.#drawnAt = now;
      this.#draw(this.#status(now));
    } else if (this.#plainLines && now - this.#lineAt >= PLAIN_LINE_MS) {
      this.#lineAt = now;
      process.stderr.write(`${this.#status(now)}\n`);
    }
  }

  /** The count starts again from `done` (a download the server made start over). */
  restart(done: number) {
    this.#done = done;
    this.#from = { done, at: Date.now() };
  }

  finish() {
    if (!this.#terminal && !this.#plainLines) return;
    this.#done = this.total;
    const status = this.#status(null);
    if (this.#terminal) this.#draw(status);
    process.stderr.write(this.#terminal ? "\n" : `${status}\n`);
    this.#drawnLength = 0;
  }

  /** A line of its own (a retry, a resume) that the bar, if any, is redrawn below. */
  note(line: string) {
    if (this.#drawnLength > 0) this.#draw("");
    process.stderr.write(`${line}\n`);
    this.#drawnAt = 0;
    this.#drawnLength = 0;
  }

  /** Ends a bar that will not finish (the command failed), so the error starts on a line of its own. */
  abandon() {
    if (this.#drawnLength > 0) process.stderr.write("\n");
    this.#drawnLength = 0;
  }

  /** Over the bar on screen, blanking first what a shorter line would leave of it (no escape codes needed). */
  #draw(status: string) {
    const blank = status.length < this.#drawnLength ? `\r${" ".repeat(this.#drawnLength)}` : "";
    process.stderr.write(`${blank}\r${status}`);
    this.#drawnLength = status.length;
  }

  /** `download [######........] 34% 8.0/23.5 MiB 12.3 MiB/s 1s left`; without `now` (finished) no rate. */
  #status(now: number | null): string {
    const ratio = this.total > 0 ? Math.min(1, this.#done / this.total) : 1;
    const width = 30;
    const filled = Math.round(ratio * width);
    const bar = `${"#".repeat(filled)}${".".repeat(width - filled)}`;
    const percent = Math.floor(ratio * 100)
      .toString()
      .padStart(3);
    return `${this.label} [${bar}] ${percent}% ${mebibytes(this.#done)}/${mebibytes(this.total)} MiB${now === null ? "" : this.#rate(now)}`;
  }

  /** Speed over this run (bytes resumed from do not count) and the time left, once there is a measure. */
  #rate(now: number): string {
    const seconds = (now - this.#from.at) / 1000;
    const bytes = this.#done - this.#from.done;
    if (seconds < 0.5 || bytes <= 0) return "";
    const perSecond = bytes / seconds;
    const left = Math.max(0, this.total - this.#done) / perSecond;
    return ` ${mebibytes(perSecond)} MiB/s ${left < 1 ? "<1" : Math.round(left)}s left`;
  }
}

export const mebibytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
