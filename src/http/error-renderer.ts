import type { ValueError } from "@sinclair/typebox/errors";
import { Elysia, type ValidationError } from "elysia";
import { isDatabaseUnavailable } from "../db/errors.ts";
import { AppError, DatabaseUnavailable, NotFound } from "../errors.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log-errors.ts";
import { invalidFrom } from "../validation/messages.ts";
import { requestState } from "./request-state.ts";

interface RendererOptions {
  log: Logger;
  /** Methods served at `path` by some route; a non-empty answer turns a 404 into a 405. */
  allowedMethods(path: string): string[];
}

/** The single place where failures become responses. Registered globally, first in the app. */
export const errorRenderer = ({ log, allowedMethods }: RendererOptions) =>
  new Elysia({ name: "http.errors" }).onError({ as: "global" }, ({ code, error, request, path, set }) => {
    const render = (failure: AppError) => {
      set.status = failure.status; // what the request log reports
      return Response.json(failure.body(), { status: failure.status, headers: failure.headers });
    };
    if (error instanceof AppError) return render(error);
    // Not a bug of ours: the database is away for a moment (a restart, a network that drops packets).
    if (isDatabaseUnavailable(error)) {
      log.warn("database unavailable", {
        request_id: requestState(request).id,
        method: request.method,
        path,
        error: errorFields(error),
      });
      return render(new DatabaseUnavailable());
    }
    switch (code) {
      case "VALIDATION":
        // A response that fails its own schema is our bug, not the client's.
        if (error.type === "response") break;
        return render(validationFailure(error));
      case "PARSE":
        // Our body parser's own refusals (413, 415, depth, NUL) arrive wrapped in Elysia's ParseError.
        if (error.cause instanceof AppError) return render(error.cause);
        return render(new AppError(400, "The request body could not be parsed as JSON."));
      case "NOT_FOUND": {
        const allowed = allowedMethods(path);
        if (allowed.length > 0) {
          return render(
            new AppError(405, `The ${request.method} method is not supported for this route.`, {
              allow: allowed.join(", "),
            }),
          );
        }
        return render(new NotFound("Route"));
      }
    }
    log.error("request failed", {
      request_id: requestState(request).id,
      method: request.method,
      path,
      error: errorFields(error),
    });
    return render(new AppError(500, "Server Error."));
  });

/** Translates Elysia/TypeBox validation output into Laravel field messages. */
export function validationFailure(error: Readonly<ValidationError>): AppError {
  // A path segment that cannot be an id names nothing that exists: its schema names the thing.
  if (error.type === "params") {
    const failed = error.all.find((issue) => "schema" in issue && issue.schema["x-not-found"]);
    const noun = failed && "schema" in failed ? (failed.schema["x-not-found"] as string) : undefined;
    return new NotFound(noun);
  }
  return invalidFrom(
    error.all.filter((issue): issue is ValueError & typeof issue => "path" in issue),
    error.type,
  );
}
