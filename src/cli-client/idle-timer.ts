/** A transfer that moves no byte for this long is given up on (and retried, resuming). */
export const IDLE_TIMEOUT_MS = 30_000;

/** Aborts the request when no byte has arrived for `ms`; `touch` on every chunk. */
export class IdleTimer {
  readonly #controller = new AbortController();
  #timer: Timer | undefined;
  fired = false;

  constructor(private readonly ms: number) {
    this.touch();
  }

  get signal() {
    return this.#controller.signal;
  }

  touch() {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.fired = true;
      this.#controller.abort(new DOMException(`no data for ${this.ms / 1000} s`, "TimeoutError"));
    }, this.ms);
  }

  stop() {
    clearTimeout(this.#timer);
  }
}
