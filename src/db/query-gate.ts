/**
 * Lets at most `limit` units of work (queries, transactions) into the postgres.js pool at once; the
 * rest wait here, first come first served.
 *
 * Why: postgres.js 3.4.9, with more queries in flight than it has connections, stacks the extra ones
 * on busy connections, and its internal queue keeps a slot for every entry it ever handed out (it
 * compacts only once it is empty, which under sustained load never happens). Every move of a
 * connection then scans that ever longer array, so a server under steady load gets slower minute by
 * minute (bench/README.md, "sustained load"). Held to the pool size, postgres.js always finds an
 * idle connection and its queues stay as short as the pool.
 */
export class QueryGate {
  #active = 0;
  #waiting: (() => void)[] = [];
  #head = 0;

  constructor(readonly limit: number) {}

  /** Runs `task` once a slot is free; the slot is held until the promise it returns settles. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.#active++;
        task()
          .then(resolve, reject)
          .finally(() => this.#release());
      };
      if (this.#active < this.limit) start();
      else this.#waiting.push(start);
    });
  }

  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  #release(): void {
    this.#active--;
    this.#next()?.();
  }

  /** The oldest waiting task; the array is compacted as it drains, not only once it is empty. */
  #next(): (() => void) | undefined {
    if (this.#head === this.#waiting.length) return undefined;
    const next = this.#waiting[this.#head];
    this.#waiting[this.#head++] = () => {};
    if (this.#head === this.#waiting.length || (this.#head > 1024 && this.#head * 2 > this.#waiting.length)) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
    return next;
  }
}
