// POST /api/changelog/preview: a changelog rendered as depot shows it (the dashboard's preview and
// release notes), sanitised on the server, with the session as with a bearer token.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createUser, tokenFor } from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

let t: TestApp;
let base: string;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  token = await tokenFor(t.ctx, await createUser(t.ctx));
});
afterAll(() => t.close());

const preview = (body: unknown, headers: Record<string, string> = bearer(token)) =>
  fetch(`${base}/api/changelog/preview`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("Markdown is rendered, and what it carries that could run is removed", async () => {
  const response = await preview({
    changelog:
      '## Fixed\n\n- the *web* editor\n\n<script>alert(1)</script><a href="javascript:x">x</a><img src=x onerror=alert(1)>',
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  const { data } = (await readJson(response)) as { data: { html: string } };
  expect(data.html).toContain("<h2>Fixed</h2>");
  expect(data.html).toContain("<li>the <em>web</em> editor</li>");
  expect(data.html).not.toContain("<script");
  expect(data.html).not.toContain("javascript:");
  expect(data.html).not.toContain("onerror");
});

test("HTML changelogs are sanitised, not rendered as Markdown; an empty one is empty", async () => {
  const html = await readJson(
    await preview({ changelog: "<p>*as is*</p><style>p{}</style>", changelog_format: "html" }),
  );
  expect(html).toEqual({ data: { html: "<p>*as is*</p>" } });
  expect(await readJson(await preview({ changelog: "  " }))).toEqual({ data: { html: "" } });
});

test("the dashboard's session may preview (with its CSRF token); bad input is a 422 per field", async () => {
  const user = await userWithPassword(t.ctx, "correct horse battery");
  const session = await signIn(base, user.email, "correct horse battery");
  const viaSession = await preview({ changelog: "**bold**" }, sessionHeaders(session));
  expect(viaSession.status).toBe(200);
  expect(await readJson(viaSession)).toEqual({ data: { html: "<p><strong>bold</strong></p>\n" } });

  const wrong = await preview({ changelog: 5, changelog_format: "rtf" });
  expect(wrong.status).toBe(422);
  const body = (await readJson(wrong)) as { message: string; errors: Record<string, string[]> };
  expect(Object.keys(body.errors).sort()).toEqual(["changelog", "changelog_format"]);
  expect(typeof body.message).toBe("string");

  const anonymous = await fetch(`${base}/api/changelog/preview`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  expect(anonymous.status).toBe(401);
  expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
});
