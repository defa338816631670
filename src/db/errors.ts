/** PostgreSQL's unique_violation (23505), as postgres.js or PGlite report it (directly or as the cause). */
export function isUniqueViolation(error: unknown): boolean {
  const failure = error as { code?: string; cause?: { code?: string } } | null;
  return failure?.code === "23505" || failure?.cause?.code === "23505";
}
