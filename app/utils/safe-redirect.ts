const DEFAULT_REDIRECT = "/";

/**
 * Returns `target` only when it is a same-origin relative path ("/billing?tab=x"); anything else —
 * absolute URLs, protocol-relative "//evil.example", backslash tricks, control characters — goes home.
 */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = DEFAULT_REDIRECT): string {
  if (typeof target !== "string" || target.length === 0 || target.length > 2048) return fallback;
  if (!target.startsWith("/") || target.startsWith("//") || target.startsWith("/\\")) return fallback;
  // Browsers strip tabs and newlines from URLs and treat "\" like "/", which can turn "/\t/evil" into "//evil".
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
  if (/[\u0000-\u001f\u007f\\]/.test(target)) return fallback;
  try {
    const base = "http://portal.invalid";
    const url = new URL(target, base);
    if (url.origin !== base) return fallback;
    const result = `${url.pathname}${url.search}${url.hash}`;
    // Dot segments can collapse into a protocol-relative URL ("/..//evil" -> "//evil"): check what we return.
    if (result.startsWith("//") || result.startsWith("/\\")) return fallback;
    return result;
  } catch {
    return fallback;
  }
}

/** The login URL for a visitor who asked for `path`: the root needs no oldurl (identity §2). */
export function loginUrlFor(pathWithSearch: string): string {
  const target = safeRedirect(pathWithSearch);
  return target === "/" ? "/login" : `/login?oldurl=${encodeURIComponent(target)}`;
}
