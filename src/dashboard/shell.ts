// The HTML page every dashboard URL answers: the browser code (app/) routes on the client from there.
import type { DashboardBuild } from "./bundle.ts";

export const ASSETS_PATH = "/dashboard/assets";

/**
 * Only depot itself: no inline script or style, no CDN, no fonts from elsewhere (the dashboard must
 * work with no internet), and no framing by other sites (clickjacking the sign-in form).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join("; ");

/** Sent with the page and its assets. */
export const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

export function shellHtml(build: DashboardBuild): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>depot</title>
<link rel="icon" type="image/svg+xml" href="${ASSETS_PATH}/${build.icon.name}">
<link rel="stylesheet" href="${ASSETS_PATH}/${build.stylesheet.name}">
<script type="module" src="${ASSETS_PATH}/${build.script.name}"></script>
</head>
<body>
<noscript>The depot dashboard needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
}
