#!/usr/bin/env bun
// `npx depot …` from a checkout: npm puts node_modules/.bin (with Bun) on PATH.
import "../src/main.ts";
