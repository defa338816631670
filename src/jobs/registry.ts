import type { Static, TSchema } from "@sinclair/typebox";
import type { Queue } from "pg-boss";
import type { AppContext } from "../context.ts";

/**
 * A queue: its name, the payload schema both ends agree on, and its handler.
 * Senders pass the definition (not a bare name) so the payload type is checked at compile time;
 * the worker checks it again at run time and drops a malformed payload without retrying.
 */
export interface QueueDefinition<S extends TSchema = TSchema> {
  readonly name: string;
  readonly payload: S;
  /** pg-boss queue options: retries, backoff, expiry, retention. */
  readonly options?: Omit<Queue, "name">;
  /** Jobs fetched and run at once per worker process. */
  readonly concurrency?: number;
  /** Absent: jobs wait in the queue for a consumer (an outbox whose consumer ships later). */
  handle?(ctx: AppContext, data: Static<S>, job: { id: string; retryCount: number }): Promise<void>;
}

export const defineQueue = <S extends TSchema>(definition: QueueDefinition<S>): QueueDefinition<S> =>
  definition;
