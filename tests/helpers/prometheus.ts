/** One sample of the text exposition format: `name{label="value",…} 1.5`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** `# TYPE name kind` lines, by metric name. */
  types: Map<string, string>;
  /** Lines that are neither a comment nor a well-formed sample (must be empty). */
  malformed: string[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;

/** Parses Prometheus's text exposition format (version 0.0.4) strictly enough to catch a broken line. */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const malformed: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type?.[1] && type[2]) types.set(type[1], type[2]);
      else if (!/^# HELP \S+ /.test(line)) malformed.push(line);
      continue;
    }
    const match = SAMPLE.exec(line);
    const labels = match ? parseLabels(match[2] ?? "") : null;
    const value = match?.[3] === undefined ? Number.NaN : parseValue(match[3]);
    if (!match?.[1] || labels === null || Number.isNaN(value)) {
      malformed.push(line);
      continue;
    }
    samples.push({ name: match[1], labels, value });
  }
  return { samples, types, malformed };
}

function parseLabels(text: string): Record<string, string> | null {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match?.[1] || match[2] === undefined || LABEL.lastIndex === start) return null;
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  // Prometheus reads NaN in any case; prom-client writes "Nan" (an event-loop delay histogram with no samples yet).
  if (/^nan$/i.test(text)) return 0;
  return /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
}

/** The value of the one sample with exactly these labels (0 when there is none yet). */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels);
  const found = exposition.samples.filter(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === wanted.length &&
      wanted.every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} with ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** Every sample of a metric whose labels include these. */
export const seriesOf = (exposition: Exposition, name: string, labels: Record<string, string> = {}) =>
  exposition.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
