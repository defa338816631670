// SQL migrations are imported as text so they are embedded in the compiled binary.
declare module "*.sql" {
  const text: string;
  export default text;
}

// PGlite's WASM modules and data bundle, imported as file paths so the compiled binary embeds them.
declare module "@electric-sql/pglite/*.wasm" {
  const path: string;
  export default path;
}
declare module "@electric-sql/pglite/pglite.data" {
  const path: string;
  export default path;
}

// Scalar's browser bundle (the /docs UI), imported as a file path so the compiled binary embeds it.
declare module "#scalar/dist/browser/standalone.js" {
  const path: string;
  export default path;
}

// The dashboard's /favicon.ico, imported as a file path so the compiled binary embeds it.
declare module "*.ico" {
  const path: string;
  export default path;
}
