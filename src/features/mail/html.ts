/** The HTML part of a depot e-mail: `body` (already escaped where needed) in the one page layout. */
export const htmlEmail = (subject: string, body: string) => `<!doctype html>
<html>
<head><meta charset="utf-8"><title>${Bun.escapeHTML(subject)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5; max-width: 40em">
${body}</body>
</html>
`;
