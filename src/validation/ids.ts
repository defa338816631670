import { t } from "elysia";
import { Invalid, NotFound } from "../errors.ts";
import { Int } from "./schemas.ts";

/**
 * A database id written as decimal digits. `t.Numeric` would also take "1e3", "0x10" and " 7",
 * so ids are matched by pattern and kept below 2^53.
 */
const ID_PATTERN = /^[1-9]\d{0,15}$/;
/** At most 15 digits: every such number is a safe integer, so a path id decodes without a check. */
const SAFE_ID = /^[1-9]\d{0,14}$/;
// Both cases spelled out rather than an `i` flag: a schema's pattern is the regex's source, flags lost.
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const IdString = t.String({ pattern: ID_PATTERN.source, description: "a positive integer id" });

/**
 * A path segment that names a row by its id, decoded to a number for the handler. Anything that
 * cannot be an id names nothing: the error renderer answers `404 {"message":"<noun> not found."}`,
 * as for an id that names no row (`x-not-found` carries the noun, and shows in the document).
 */
export const IdParam = (noun: string) =>
  t
    .Transform(
      t.String({
        pattern: SAFE_ID.source,
        "x-not-found": noun,
        description: `${noun} id`,
      }),
    )
    .Decode(Number)
    .Encode(String);

/** A path segment that names a row by its uuid, in lower case; anything else is the noun's 404. */
export const UuidParam = (noun: string) =>
  t
    .Transform(
      t.String({
        pattern: UUID.source,
        "x-not-found": noun,
        description: `${noun} id (a uuid)`,
      }),
    )
    .Decode((raw) => raw.toLowerCase())
    .Encode((id) => id);

/**
 * An id in a query string, decoded to a number (or undefined when empty, as Laravel reads `?x=`);
 * anything else is a 422 on `field` in Laravel's words.
 */
export const QueryId = (field: string, description: string) =>
  t
    .Transform(
      t.String({
        pattern: `^(${SAFE_ID.source.slice(1, -1)})?$`,
        error: `The ${field.replaceAll("_", " ")} field must be an integer.`,
        description,
      }),
    )
    .Decode((raw) => (raw === "" ? undefined : Number(raw)))
    .Encode((id) => (id === undefined ? "" : String(id)));

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

/** Whether `raw` can be a uuid id at all; anything else names nothing (a 404 without a query). */
export const isUuid = (raw: string) => UUID.test(raw);
