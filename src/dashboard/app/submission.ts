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

  return { busy, error, fields, setError, setFields, run };
}
