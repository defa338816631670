import type { TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { Invalid } from "./errors.ts";
import { Int } from "./schemas.ts";

/** Query parameters of a simple-paginated list; strings so "1e3" and "abc" are rejected, not coerced. */
export const PageQuery = {
  page: t.Optional(t.String({ description: "page number, from 1", examples: ["1"] })),
  per_page: t.Optional(t.String({ description: "items per page, 1–100 (default 15)", examples: ["15"] })),
};

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
  const errors: Record<string, string[]> = {};
  if (page === null) errors.page = ["The page field must be an integer of at least 1."];
  if (perPage === null || perPage > 100)
    errors.per_page = ["The per page field must be an integer between 1 and 100."];
  if (page === null || perPage === null || errors.per_page) throw new Invalid(errors);
  return { page, perPage, offset: (page - 1) * perPage };
}

/** A positive integer, the fallback when absent or empty, null when it is anything else. */
function parseCount(raw: string | undefined, fallback: number): number | null {
  if (raw === undefined || raw === "") return fallback;
  return PAGE.test(raw) ? Number(raw) : null;
}

/** Laravel `simplePaginate` JSON from the rows of a query that asked for `perPage + 1`. */
export function simplePage<T>(rows: T[], request: PageRequest, url: URL) {
  const hasMore = rows.length > request.perPage;
  const data = hasMore ? rows.slice(0, request.perPage) : rows;
  const path = `${url.origin}${url.pathname}`;
  const link = (page: number) => {
    const params = new URLSearchParams(url.search);
    params.set("page", String(page));
    return `${path}?${params}`;
  };
  const from = data.length > 0 ? request.offset + 1 : null;
  return {
    data,
    links: {
      first: link(1),
      last: null,
      prev: request.page > 1 ? link(request.page - 1) : null,
      next: hasMore ? link(request.page + 1) : null,
    },
    meta: {
      current_page: request.page,
      from,
      path,
      per_page: request.perPage,
      to: from === null ? null : request.offset + data.length,
    },
  };
}

/**
 * The request's URL as the public sees it: APP_URL (which may carry a path prefix) plus the request's
 * path and query, so links are right behind a proxy or a mapped container port.
 */
export function publicUrl(requestUrl: string, appUrl: string): URL {
  const url = new URL(requestUrl);
  return new URL(`${appUrl}${url.pathname}${url.search}`);
}

/** The response schema of a `simplePage` of `item`s (the purchase page's shape). */
export const simplePageOf = <T extends TSchema>(item: T) =>
  t.Object({
    data: t.Array(item),
    links: t.Object({
      first: t.String(),
      last: t.Null(),
      prev: t.Union([t.String(), t.Null()]),
      next: t.Union([t.String(), t.Null()]),
    }),
    meta: t.Object({
      current_page: Int(),
      from: t.Union([Int(), t.Null()]),
      path: t.String(),
      per_page: Int(),
      to: t.Union([Int(), t.Null()]),
    }),
  });
