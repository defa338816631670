import { expect } from "bun:test";
import { readJson } from "./app.ts";

/** A license made through the license API with `apiKey`, as a vendor's own system makes one (201). */
export async function licenseThroughApi(base: string, apiKey: string, fields: Record<string, unknown>) {
  const created = await fetch(`${base}/api/v1/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify(fields),
  });
  expect(created.status).toBe(201);
  return readJson(created);
}
