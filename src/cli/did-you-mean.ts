/**
 * The known name a mistyped one most likely meant, for `unknown option --versoin (did you mean
 * --version?)`: one edit away for a name of up to four letters, two for a longer one; else null.
 */
export function closestName(typed: string, names: string[]): string | null {
  const allowed = typed.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | null = null;
  for (const name of names) {
    const distance = editDistance(typed, name);
    if (distance <= allowed && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit (`versoin` → `version`). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
