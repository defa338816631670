// The archive of an initialised, migrated embedded database that the compiled binary carries: the
// build (scripts/lib/compile.ts) replaces this module's text (Bun.build `files`) with an import of that
// archive as an embedded file. In the sources it stays null and initial-data.ts finds or makes one.
export const shippedInitialData: string | null = null;
