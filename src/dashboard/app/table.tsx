// A list as a table: a header per column, and a column with a sort value sorts the rows when its header
// is pressed (again: the other way). It sorts the rows shown, which is the whole list unless "Show more"
// has more: depot's list endpoints answer newest first and take no other order. A row may have a detail
// (a panel its row action opened): a full-width row right under it, which moves with it when sorted.
import { type ComponentChildren, Fragment } from "preact";
import { useState } from "preact/hooks";

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** What the column sorts by (a list: by its first item, then the next); left out, it does not sort. */
  sortBy?: (row: T) => SortKey;
  /** A number column: right-aligned. */
  numeric?: boolean;
}

interface Props<T> {
  /** The table's name, for screen readers (its caption). */
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  /** What shows right under a row, across every column (a panel it opened); null for nothing. */
  detail?: (row: T) => ComponentChildren | null;
  /** Narrower cell padding, for a table of many columns that should still fit a desktop's page. */
  compact?: boolean;
}

type SortKey = string | number | (string | number)[];
type Sort = { column: number; ascending: boolean } | null;

const compareOne = (a: string | number | undefined, b: string | number | undefined) =>
  typeof a === "number" && typeof b === "number" ? a - b : String(a ?? "").localeCompare(String(b ?? ""));

function compare(a: SortKey, b: SortKey): number {
  const left = Array.isArray(a) ? a : [a];
  const right = Array.isArray(b) ? b : [b];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const order = compareOne(left[index], right[index]);
    if (order !== 0) return order;
  }
  return 0;
}

export function Table<T>({ caption, columns, rows, rowKey, detail, compact = false }: Props<T>) {
  const [sort, setSort] = useState<Sort>(null);
  const sortBy = sort === null ? undefined : columns[sort.column]?.sortBy;
  const shown =
    sort === null || !sortBy
      ? rows
      : [...rows].sort((a, b) => compare(sortBy(a), sortBy(b)) * (sort.ascending ? 1 : -1));
  return (
    <div class={["table-scroll", compact && "compact", detail && "with-details"].filter(Boolean).join(" ")}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => {
              const sorted =
                sort?.column === index ? (sort.ascending ? "ascending" : "descending") : undefined;
              return (
                <th
                  key={column.label}
                  scope="col"
                  aria-sort={sorted}
                  class={column.numeric ? "numeric" : undefined}
                >
                  {column.sortBy ? (
                    <button
                      type="button"
                      class="sort"
                      onClick={() =>
                        setSort({ column: index, ascending: sort?.column === index ? !sort.ascending : true })
                      }
                    >
                      {column.label}
                      <span aria-hidden="true">
                        {sorted === "ascending" ? " ▲" : sorted === "descending" ? " ▼" : ""}
                      </span>
                    </button>
                  ) : (
                    column.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => {
            const under = detail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr>
                  {columns.map((column) => (
                    <td key={column.label} class={column.numeric ? "numeric" : undefined}>
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
                {under !== null && under !== undefined && under !== false && (
                  <tr class="row-detail">
                    <td colSpan={columns.length}>{under}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
