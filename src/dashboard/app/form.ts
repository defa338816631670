// The one hook behind every dashboard form: what is typed, whether the request is running, and its
// refusal shown where it belongs. A 422's errors go beside the inputs they are about; the refusal's
// message goes above the form only when something it says is not beside an input. Changing an
// input takes its errors away, since they no longer describe what is typed; once no field's error
// is left, the message above goes too, as it only summed them up.
import { useState } from "preact/hooks";
import { ApiError, messageOf } from "./api.ts";

/** A refusal as the form shows it: depot's message, and a 422's messages by field. */
interface Refusal {
  message: string | null;
  fields: Record<string, string[]>;
}

/** The names of a form's values that are typed text. */
type TextInputs<Values> = {
  [Name in keyof Values]: Values[Name] extends string ? Name : never;
}[keyof Values] &
  string;

export interface FormOptions<Values> {
  /** The message for a failure that is not depot's refusal (a bug, say). */
  failure: string;
  /** The 422 keys an input answers for, where they differ from its name: `{ file: ["file", "upload_id"] }`. */
  errorKeys?: { [Name in keyof Values]?: string[] };
  /** The refusal's message stays above the form even when its inputs show every error (sign-in's). */
  summaryAlways?: boolean;
  /** A message to show before anything is sent: why the reader is here. */
  initialError?: string | null;
}

/** A text input as the hook binds it: spread onto a Field, or handed to a component made of Fields. */
export interface BoundInput {
  value: string;
  error: string | null;
  onInput: (event: { currentTarget: { value: string } }) => void;
}

/** `key` is one of `keys` or an item of one (`abilities.0` of `abilities`). */
const within = (key: string, keys: string[]) => keys.some((k) => key === k || key.startsWith(`${k}.`));

export function useForm<Values extends object>(initial: Values, options: FormOptions<Values>) {
  const [values, setValues] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal>({ message: options.initialError ?? null, fields: {} });
  const { message: error, fields } = refusal;

  const keysOf = (name: string): string[] => options.errorKeys?.[name as keyof Values] ?? [name];
  const inputs = Object.keys(initial).flatMap(keysOf);

  /** The errors of `keys` go; the message above too, once no field's error is left. */
  const clear = (keys: string[]) =>
    setRefusal((current) => {
      if (!Object.keys(current.fields).some((key) => within(key, keys))) return current;
      const left = Object.fromEntries(Object.entries(current.fields).filter(([key]) => !within(key, keys)));
      return { message: Object.keys(left).length === 0 ? null : current.message, fields: left };
    });

  /** Keeps what the reader typed into input `name`, and takes that input's errors away. */
  const set = <Name extends keyof Values & string>(name: Name, value: Values[Name]) => {
    setValues((current) => ({ ...current, [name]: value }));
    clear(keysOf(name));
  };

  /** Runs `action`; on a failure keeps its message and field errors. Resolves whether it succeeded. */
  const run = async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setRefusal({ message: null, fields: {} });
    try {
      await action();
      return true;
    } catch (failure) {
      setRefusal({
        message: messageOf(failure, options.failure),
        fields: failure instanceof ApiError ? failure.fields : {},
      });
      return false;
    } finally {
      setBusy(false);
    }
  };

  const named = Object.keys(fields);
  /** The message above the form; null while every field it names shows its errors beside its input. */
  const summary =
    error && (options.summaryAlways || named.length === 0 || named.some((key) => !within(key, inputs)))
      ? error
      : null;

  /**
   * The errors of input `name` (or of any other 422 key) and its items, joined for one line beside
   * it; null for none. A message the summary above already says is not said twice.
   */
  const errorOf = (name: string): string | null => {
    const keys = name in initial ? keysOf(name) : [name];
    const messages = Object.entries(fields)
      .filter(([key]) => within(key, keys))
      .flatMap(([, messages]) => messages)
      .filter((message) => message !== summary);
    return messages.length > 0 ? messages.join(" ") : null;
  };

  /** A text input's value, its errors and the handler that keeps what is typed: `<Field {...form.input("name")} />`. */
  const input = <Name extends TextInputs<Values>>(name: Name): BoundInput => ({
    value: values[name] as string,
    error: errorOf(name),
    onInput: (event) => set(name, event.currentTarget.value as Values[Name]),
  });

  return {
    values,
    set,
    input,
    /** Empties the form after a success (or fills it with `next`). */
    reset: (next: Values = initial) => setValues(next),
    busy,
    run,
    summary,
    errorOf,
    /** Whether the 422 named `key`, even where its message is not repeated beside the input. */
    refused: (key: string) => key in fields,
  };
}

export type Form<Values extends object> = ReturnType<typeof useForm<Values>>;
