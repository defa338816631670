// Validations per day by outcome: stacked bars drawn as SVG (no script of its own, nothing inline the
// CSP forbids), and the same numbers as a table for screen readers and for reading exact values.
// Numbers are written in the reader's locale.
import type { ValidationRow } from "../wire.ts";

const WIDTH = 600;
const HEIGHT = 160;

/** The outcome's colour class: VALID in the accent colour, every refusal in the warning one. */
const toneOf = (code: string) => (code === "VALID" ? "bar-valid" : "bar-refused");

export function ValidationsChart({ rows }: { rows: ValidationRow[] }) {
  if (rows.length === 0)
    return (
      <p class="empty">
        No validations in the last 30 days. They show here once your app checks its license.
      </p>
    );
  const days = [...new Set(rows.map((row) => row.day))].sort();
  const codes = [...new Set(rows.map((row) => row.code))].sort((a, b) =>
    a === "VALID" ? -1 : b === "VALID" ? 1 : a.localeCompare(b),
  );
  const countOf = (day: string, code: string) =>
    rows.filter((row) => row.day === day && row.code === code).reduce((total, row) => total + row.count, 0);
  const totalOf = (day: string) => codes.reduce((total, code) => total + countOf(day, code), 0);
  const highest = Math.max(1, ...days.map(totalOf));
  const step = WIDTH / days.length;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} aria-hidden="true" focusable="false" preserveAspectRatio="none">
        {days.map((day, index) => {
          let top = HEIGHT;
          return codes.map((code) => {
            const height = (countOf(day, code) / highest) * HEIGHT;
            top -= height;
            return (
              <rect
                key={`${day}-${code}`}
                class={toneOf(code)}
                x={index * step + step * 0.1}
                y={top}
                width={step * 0.8}
                height={height}
              />
            );
          });
        })}
      </svg>
      <figcaption>Validations per day by outcome (VALID in blue, refusals in orange)</figcaption>
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">Validations per day by outcome</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {codes.map((code) => (
                <th key={code} scope="col" class="numeric">
                  {code}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day}>
                <th scope="row">
                  <time dateTime={day}>
                    {new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: "UTC" })}
                  </time>
                </th>
                {codes.map((code) => (
                  <td key={code} class="numeric">
                    {countOf(day, code).toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
