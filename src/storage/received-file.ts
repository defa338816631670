/** A file in the release store under its key: a version's, or a finished resumable upload's. */
export interface StoredFile {
  /** Relative to the store: `products/<id>/<uuid>` for a version, `uploads/<id>` for an upload. */
  key: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

/** How a store moves a received file to its key, and takes it away again. */
export interface Keeping {
  keep(): Promise<void>;
  /**
   * Removes what is stored of the file: the temporary copy, or the file at its key once `kept`. A
   * failure is logged rather than thrown; what stays behind is removed by the leftovers sweep.
   */
  remove(kept: boolean): Promise<void>;
}

/**
 * A file one request received, complete and hashed, that no version points at yet. Declared with
 * `await using`, it removes itself when its scope ends, however that ends, unless `keepFor` has
 * handed it to a version. That is what guarantees a failed publish leaves no file behind.
 */
export class ReceivedFile implements StoredFile, AsyncDisposable {
  #kept = false;
  #recorded = false;

  constructor(
    readonly key: string,
    readonly size: number,
    readonly sha256: string,
    private readonly keeping: Keeping,
  ) {}

  /**
   * Moves the file to its key, then runs `record`, which commits the row that points at it. The
   * file is in place before the row exists, so no reader ever finds a row without its file. Once
   * `record` has returned, the file belongs to that row; if either step fails, disposal removes it.
   */
  async keepFor<T>(record: () => Promise<T>): Promise<T> {
    await this.keeping.keep();
    this.#kept = true;
    const result = await record();
    this.#recorded = true;
    return result;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    // Never throws: an error thrown here would replace the answer the request was about to get.
    if (!this.#recorded) await this.keeping.remove(this.#kept);
  }
}
