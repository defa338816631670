/**
 * Whether this is the compiled depot binary (`bun build --compile`), whose modules live in Bun's
 * embedded file system, rather than Bun running the sources.
 */
export const isCompiledBinary = import.meta.url.includes("$bunfs") || import.meta.url.includes("~BUN");
