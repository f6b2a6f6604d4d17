/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * A sandbox's page: plain HTML, no scripts or inline styles (the portal's CSP), one stylesheet. `mainLabel`
 * names its main landmark, for a page shown in a frame of a portal page (the 3-D Secure challenge in the
 * checkout's dialog), whose own main it must be told apart from.
 */
export function sandboxPage(title: string, stylesheetHref: string, body: string, { mainLabel }: { mainLabel?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(stylesheetHref)}">
</head>
<body>
<main class="card"${mainLabel ? ` aria-label="${escapeHtml(mainLabel)}"` : ""}>
${body}
</main>
</body>
</html>
`;
}
