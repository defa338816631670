/**
 * A one-line progress bar on stderr, redrawn at most ten times a second, only when stderr is a
 * terminal: piped or redirected output stays free of carriage returns.
 */
export class Progress {
  readonly #enabled = process.stderr.isTTY === true;
  #done = 0;
  #drawnAt = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  advance(bytes: number) {
    this.#done += bytes;
    const now = Date.now();
    if (this.#enabled && now - this.#drawnAt >= 100) {
      this.#drawnAt = now;
      this.#draw();
    }
  }

  finish() {
    if (!this.#enabled) return;
    this.#done = this.total;
    this.#draw();
    process.stderr.write("\n");
  }

  #draw() {
    const ratio = this.total > 0 ? Math.min(1, this.#done / this.total) : 1;
    const width = 30;
    const filled = Math.round(ratio * width);
    const bar = `${"#".repeat(filled)}${".".repeat(width - filled)}`;
    process.stderr.write(
      `\r${this.label} [${bar}] ${Math.floor(ratio * 100)
        .toString()
        .padStart(3)}% ${mebibytes(this.#done)}/${mebibytes(this.total)} MiB`,
    );
  }
}

export const mebibytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
