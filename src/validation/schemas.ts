import {
  FormatRegistry,
  type IntegerOptions,
  type StringOptions,
  type TLiteral,
  type TUnion,
  Type,
} from "@sinclair/typebox";
import { t } from "elysia";

/**
 * A JSON integer and nothing else. Elysia's `t.Integer` also accepts the string "5", which would let
 * a string id slip through response validation and hand services a string where they expect a number.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options);

/**
 * Unicode's bidirectional embeddings, overrides and isolates (U+202A–202E, U+2066–2069): invisible,
 * they reorder the text around them, so a title ending in U+202E shows the version `9.0.1` beside it
 * as `1.0.9`. Text people read refuses them (Text, Prose); file names drop them (file-name.ts).
 */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

/** C0 and C1 control characters and DEL (a tab or newline included). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The same, but for the tab and line breaks a longer text is written with. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROLS_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

FormatRegistry.Set("plain-text", (value) => !BIDI_CONTROLS.test(value) && !CONTROL_CHARACTERS.test(value));
FormatRegistry.Set(
  "plain-prose",
  (value) => !BIDI_CONTROLS.test(value) && !CONTROLS_BUT_LINE_BREAKS.test(value),
);

/**
 * The plain-text rule, for every string people read that a client sent (names, titles, tags, a
 * machine's fingerprint and details, image URLs): no bidirectional controls, no control characters
 * (a NUL, an escape sequence for a terminal, a line break in a one-line field).
 */
export const Text = (options?: StringOptions) => Type.String({ ...options, format: "plain-text" });

/**
 * The plain-text rule for longer text written in lines (descriptions, changelogs, a yank's reason):
 * tabs and line breaks are taken, every other control character and bidirectional control is not.
 */
export const Prose = (options?: StringOptions) => Type.String({ ...options, format: "plain-prose" });

/**
 * One of `values`, for input. Not `t.UnionEnum`: Elysia gives that a default (its first value) and
 * fills it into a body that left the field out, so an absent `status` would read as "draft".
 */
export const OneOf = <const V extends string>(values: readonly V[]) =>
  t.Union(values.map((value) => t.Literal(value))) as unknown as TUnion<TLiteral<V>[]>;

/** A flag as a form sends it (`1`, `true`, …) or as JSON does (a boolean). */
export const FormFlag = t.Union([t.Boolean(), OneOf(["0", "1", "true", "false"])]);
export const isSet = (flag: boolean | string | undefined) => flag === true || flag === "1" || flag === "true";
