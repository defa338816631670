/**
 * The Bun flag depot is started with (the binary's built-in arguments, `npm start`, `bin/depot.js`):
 * request headers of up to 64 KiB in all instead of Bun's 16 KiB. A differential download asks for up
 * to 1,000 byte ranges in one `Range` header (about 21 KiB for a 100 MiB file), which Bun would
 * otherwise refuse with a 431 before depot sees the request. Bun reads it only at process start.
 */
export const MAX_HEADER_SIZE_FLAG = "--max-http-header-size=65536";
