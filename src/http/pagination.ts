import type { TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { type PageRequest, pageRequest } from "../page-request.ts";
import { Int } from "../validation/schemas.ts";
import { requestState } from "./request-state.ts";

/** Query parameters of a simple-paginated list; strings so "1e3" and "abc" are rejected, not coerced. */
export const PageQuery = {
  page: t.Optional(t.String({ description: "page number, from 1", examples: ["1"] })),
  per_page: t.Optional(t.String({ description: "items per page, 1–100 (default 15)", examples: ["15"] })),
};

/**
 * Laravel `simplePaginate` JSON from the rows of a query that asked for `perPage + 1`; its links are
 * the request's URL as the public sees it, with the other query parameters kept.
 */
export function simplePage<T>(rows: T[], request: PageRequest, httpRequest: Request) {
  const { url } = requestState(httpRequest);
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
 * A list route's answer: the page its query asks for (a malformed `page` or `per_page` is a 422), read
 * by `list`, each row as `item` shows it, as a `simplePage`. The service reads rows; the page's links
 * are the edge's business.
 */
export async function pageOf<Row, Item = Row>(
  query: { page?: string; per_page?: string },
  httpRequest: Request,
  list: (page: PageRequest) => Promise<Row[]>,
  item: (row: Row) => Item = (row) => row as unknown as Item,
) {
  const page = pageRequest(query);
  return simplePage((await list(page)).map(item), page, httpRequest);
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
