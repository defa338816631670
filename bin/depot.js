#!/usr/bin/env -S bun --max-http-header-size=65536
// `npx depot …` from a checkout: npm puts node_modules/.bin (with Bun) on PATH. The flag is
// src/http/header-size.ts's (a shebang cannot import it): room for a 1,000-range Range header.
import "../src/main.ts";
