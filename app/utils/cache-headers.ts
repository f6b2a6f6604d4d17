import type { HeadersFunction } from "@remix-run/node";

/**
 * Cache-Control for public pages: shareable by a CDN, unless this response sets a cookie (a flash
 * message being consumed, for instance), which must never be stored and shown to someone else.
 */
export function publicCache(value: string): HeadersFunction {
  return ({ loaderHeaders, parentHeaders, actionHeaders }) => {
    const setsCookie = [loaderHeaders, parentHeaders, actionHeaders].some((headers) => headers?.has("Set-Cookie"));
    return { "Cache-Control": setsCookie ? "private, no-store" : value };
  };
}
