import { t } from "elysia";
import { Invalid, NotFound } from "../errors.ts";
import { Int } from "./schemas.ts";

/**
 * A database id written as decimal digits. `t.Numeric` would also take "1e3", "0x10" and " 7",
 * so ids are matched by pattern and kept below 2^53.
 */
const ID_PATTERN = /^[1-9]\d{0,15}$/;

export const IdString = t.String({ pattern: ID_PATTERN.source, description: "a positive integer id" });

/** The id in `raw`, or null when it cannot name a row (so the caller answers 404/422 as fits). */
export function toId(raw: string | number | null | undefined): number | null {
  const text = typeof raw === "number" ? String(raw) : raw;
  if (text === null || text === undefined || !ID_PATTERN.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}

/** A path id; anything that is not a valid id names nothing, so it is a 404 like an unknown id. */
export function pathId(raw: string, thing: string): number {
  const id = toId(raw);
  if (id === null) throw new NotFound(thing);
  return id;
}

/** An optional id in a request body: null when absent, a 422 on `field` when it cannot be an id. */
export function bodyId(raw: string | number | null | undefined, field: string): number | null {
  if (raw === null || raw === undefined) return null;
  const id = toId(raw);
  if (id === null) throw invalidId(field);
  return id;
}

/** A required id in a request body (the schema has already made sure it is there). */
export function requiredBodyId(raw: string | number, field: string): number {
  const id = toId(raw);
  if (id === null) throw invalidId(field);
  return id;
}

/** Laravel's `exists` failure: "The selected user id is invalid." */
export const invalidIdMessage = (field: string) => `The selected ${field.replaceAll("_", " ")} is invalid.`;

export const invalidId = (field: string) => new Invalid({ [field]: [invalidIdMessage(field)] });

/** An id in a JSON body: a positive integer, or its digits as a string (Laravel's `integer` rule). */
export const BodyId = t.Union([Int({ minimum: 1 }), IdString]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `raw` can be a uuid id at all; anything else names nothing (a 404 without a query). */
export const isUuid = (raw: string) => UUID.test(raw);
