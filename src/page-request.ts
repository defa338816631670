import { FieldErrors, Invalid } from "./errors.ts";

// Which page of a list a caller asked for, as services take it. The page as an answer (its links,
// its schema) is the edge's business, in http/pagination.ts.

/** Which page of a list was asked for (Laravel `simplePaginate`: no total count). */
export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

const PAGE = /^[1-9]\d{0,8}$/;

/**
 * Validates `page` and `per_page` the way Laravel's validator words it. An empty value (`?page=`)
 * counts as absent, as Laravel reads it as null.
 */
export function pageRequest(query: { page?: string; per_page?: string }, defaultPerPage = 15): PageRequest {
  const page = parseCount(query.page, 1);
  const perPage = parseCount(query.per_page, defaultPerPage);
  if (page !== null && perPage !== null && perPage <= 100) {
    return { page, perPage, offset: (page - 1) * perPage };
  }
  const errors = new FieldErrors();
  if (page === null) errors.add("page", "The page field must be an integer of at least 1.");
  if (perPage === null || perPage > 100) {
    errors.add("per_page", "The per page field must be an integer between 1 and 100.");
  }
  throw new Invalid(errors.messages);
}

/** A positive integer, the fallback when absent or empty, null when it is anything else. */
function parseCount(raw: string | undefined, fallback: number): number | null {
  if (raw === undefined || raw === "") return fallback;
  return PAGE.test(raw) ? Number(raw) : null;
}
