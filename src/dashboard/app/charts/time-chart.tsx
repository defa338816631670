// A chart over days drawn by uPlot (a small canvas chart library, bundled: nothing is fetched from
// elsewhere, and it draws through the CSSOM and a canvas, which the CSP allows), and beside it the
// same numbers as a table: the chart is hidden from screen readers, the table is what they read
// (and what anyone reads for exact values). Colours come from the stylesheet's --chart-N variables,
// so light and dark follow the page; the chart is drawn again when the scheme changes.

import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { ScrollBox } from "./scroll-box.tsx";
import "uplot/dist/uPlot.min.css";
import { type ChartSeries, formatCount, formatDay, formatShare, secondsOf } from "./numbers.ts";

export type { ChartSeries };

interface Props {
  /** The figure's caption and the table's: "Validations per day by outcome". */
  caption: string;
  days: string[];
  series: ChartSeries[];
  /** `stacked`: bars whose parts add up to the day's total; `line`: one line a series (a gauge). */
  kind: "stacked" | "line";
  /** `share`: values are 0–1, written as percentages. */
  unit?: "count" | "share";
  /** A total column in the table (stacked counts). */
  total?: boolean;
}

/** The series' colour: the stylesheet's --chart-1 … --chart-6, in turn. */
const PALETTE = 6;
const colourVar = (index: number) => `--chart-${(index % PALETTE) + 1}`;

function drawOptions(element: HTMLElement, props: Props, width: number): uPlot.Options {
  const style = getComputedStyle(element);
  const colour = (name: string) => style.getPropertyValue(name).trim() || "#888";
  const format = props.unit === "share" ? formatShare : formatCount;
  const axis = {
    stroke: colour("--muted"),
    grid: { stroke: colour("--grid"), width: 1 },
    ticks: { stroke: colour("--grid"), width: 1 },
  };
  // Stacked bars: each series is drawn from 0 up to the running total, the tallest first, so every
  // part shows between the one below and the one above it.
  const bars = uPlot.paths.bars?.({ size: [0.8, 40] });
  const indexes = props.series.map((_, index) => index);
  const order = props.kind === "stacked" ? indexes.reverse() : indexes;
  return {
    width,
    height: 200,
    legend: { show: false },
    cursor: { show: false },
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
    scales: {
      x: { time: true },
      y: props.unit === "share" ? { range: [0, 1] } : { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [
      {
        ...axis,
        values: (_u, splits) =>
          splits.map((seconds) => formatDay(new Date(seconds * 1000).toISOString().slice(0, 10), true)),
      },
      { ...axis, size: 60, values: (_u, splits) => splits.map((value) => format(value)) },
    ],
    series: [
      {},
      ...order.map((index) => ({
        label: props.series[index]?.label ?? "",
        stroke: colour(colourVar(index)),
        width: props.kind === "line" ? 2 : 0,
        points: { show: false },
        ...(props.kind === "stacked" ? { fill: colour(colourVar(index)), paths: bars } : {}),
      })),
    ],
  };
}

function drawData(props: Props): uPlot.AlignedData {
  const xs = props.days.map(secondsOf);
  const indexes = props.series.map((_, index) => index);
  if (props.kind === "line") return [xs, ...indexes.map((index) => props.series[index]?.values ?? [])];
  // Running totals, the tallest (every series added) first, matching drawOptions' order.
  const running = props.days.map(() => 0);
  const stacked = props.series.map((series) =>
    series.values.map((value, day) => {
      running[day] = (running[day] ?? 0) + value;
      return running[day] ?? 0;
    }),
  );
  return [xs, ...stacked.reverse()];
}

/** The canvas: drawn on mount, redrawn when the data, the width or the colour scheme change. */
function Canvas(props: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let plot: uPlot | null = null;
    const draw = () => {
      plot?.destroy();
      plot = new uPlot(drawOptions(element, props, element.clientWidth || 600), drawData(props), element);
    };
    draw();
    const resized = new ResizeObserver(() =>
      plot?.setSize({ width: element.clientWidth || 600, height: 200 }),
    );
    resized.observe(element);
    const scheme = matchMedia("(prefers-color-scheme: dark)");
    scheme.addEventListener("change", draw);
    return () => {
      resized.disconnect();
      scheme.removeEventListener("change", draw);
      plot?.destroy();
    };
  }, [props.days, props.series, props.kind, props.unit]);
  return <div class="chart-canvas" ref={box} aria-hidden="true" />;
}

export function TimeChart(props: Props) {
  const { caption, days, series, unit, total } = props;
  const format = unit === "share" ? formatShare : formatCount;
  return (
    <figure class="chart">
      <Canvas {...props} />
      <figcaption>
        {caption}
        {series.length > 1 && (
          <ul class="chart-legend" aria-hidden="true">
            {series.map((one, index) => (
              <li key={one.label}>
                <span class={`swatch swatch-${(index % PALETTE) + 1}`} />
                {one.label}
              </li>
            ))}
          </ul>
        )}
      </figcaption>
      <details class="chart-table">
        <summary>Show the numbers</summary>
        <ScrollBox label={caption}>
          <table>
            <caption class="visually-hidden">{caption}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((one) => (
                  <th key={one.label} scope="col" class="numeric">
                    {one.label}
                  </th>
                ))}
                {total && (
                  <th scope="col" class="numeric">
                    Total
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {days.map((day, index) => (
                <tr key={day}>
                  <th scope="row">
                    <time dateTime={day}>{formatDay(day)}</time>
                  </th>
                  {series.map((one) => (
                    <td key={one.label} class="numeric">
                      {format(one.values[index] ?? 0)}
                    </td>
                  ))}
                  {total && (
                    <td class="numeric">
                      {format(series.reduce((sum, one) => sum + (one.values[index] ?? 0), 0))}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      </details>
    </figure>
  );
}
