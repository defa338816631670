// A form's sending state, shared by every form: busy while the request runs, and a refusal turned
// into the form's message (depot's own, or the form's fallback) and the 422's errors per field.
import { useState } from "preact/hooks";
import { ApiError, messageOf } from "./api.ts";

export function useSubmission(fallback: string, initialError: string | null = null) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(initialError);
  const [fields, setFields] = useState<Record<string, string[]>>({});

  /** Runs `action`; on a failure keeps its message and field errors. Resolves whether it succeeded. */
  const run = async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await action();
      return true;
    } catch (failure) {
      setError(messageOf(failure, fallback));
      setFields(failure instanceof ApiError ? failure.fields : {});
      return false;
    } finally {
      setBusy(false);
    }
  };

  /**
   * The reader changed the inputs of `keys` (and their items): their errors no longer describe what
   * is typed, so they go. Once no field's error is left, neither is the refusal's message, which only
   * summed them up.
   */
  const changed = (...keys: string[]) => {
    const named = (key: string) => keys.some((k) => key === k || key.startsWith(`${k}.`));
    if (!Object.keys(fields).some(named)) return;
    const left = Object.fromEntries(Object.entries(fields).filter(([key]) => !named(key)));
    setFields(left);
    if (Object.keys(left).length === 0) setError(null);
  };

  return { busy, error, fields, setError, setFields, run, changed };
}

/** The 422's messages for `field` and its items (`abilities.0`…), joined for one line under it; null for none. */
export const messagesFor = (fields: Record<string, string[]>, field: string): string | null =>
  Object.entries(fields)
    .filter(([key]) => key === field || key.startsWith(`${field}.`))
    .flatMap(([, messages]) => messages)
    .join(" ") || null;

/**
 * The form-level alert: the refusal's message unless every field it names is shown beside its own
 * input (`shown`), where repeating it above the form would only add noise.
 */
export function formError(error: string | null, fields: Record<string, string[]>, shown: string[]) {
  const named = Object.keys(fields).map((key) => key.split(".")[0] ?? key);
  return error && (named.length === 0 || named.some((field) => !shown.includes(field))) ? error : null;
}
