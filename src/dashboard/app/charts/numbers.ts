// Numbers and days as the reader's browser writes them (Intl, the browser's locale), and the days
// a chart spans: the stats API sends only days with counts, a chart shows every day.

/** One named line or stack of a chart. */
export interface ChartSeries {
  label: string;
  /** One value a day, in the order of the chart's days. */
  values: number[];
}

const counts = new Intl.NumberFormat();
const shares = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });

/** 1234 → "1,234" (or "1.234", "1 234": the browser's locale). */
export const formatCount = (value: number) => counts.format(value);
/** 0.4321 → "43.2%" in the browser's locale. */
export const formatShare = (value: number) => shares.format(value);

const DAY_MS = 86_400_000;
const timeOf = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** Every UTC day from `from` to `to`, both included, as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let time = timeOf(from); time <= timeOf(to); time += DAY_MS) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return days;
}

/** A UTC day as the reader writes a date: "Nov 28, 2026", "28/11/2026"… */
export const formatDay = (day: string, short = false) =>
  new Date(timeOf(day)).toLocaleDateString(
    undefined,
    short ? { month: "short", day: "numeric", timeZone: "UTC" } : { timeZone: "UTC" },
  );

/** Seconds since the epoch of a UTC day's start: uPlot's x values. */
export const secondsOf = (day: string) => timeOf(day) / 1000;
