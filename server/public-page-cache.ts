import crypto from "node:crypto";
import zlib from "node:zlib";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { languageOfHeaders, onlyLanguageCookie } from "../app/i18n/languages";

/**
 * A short in-process cache (a "micro-cache") of public pages for anonymous visitors, with a
 * hash-based Content-Security-Policy instead of a nonce (docs/decisions/013-performance-budgets.md).
 *
 * A visitor without cookies asking for one of `paths` gets a page rendered without a nonce, whose
 * CSP allows exactly the inline scripts it carries (their sha256). The page holds nothing personal
 * and no secret, so this process (and a CDN, for its s-maxage) may give it to every anonymous
 * visitor: no nonce is ever shared, and each language has its copy (a `lang` cookie alone is no reason to
 * skip the cache). Only answers the route itself marks `public` (200, HTML, no
 * Set-Cookie) are kept. Anyone with another cookie (signed in, a flash message, a flow) goes to the app
 * as usual, with a fresh nonce, which is what the routes' `Vary: Cookie` asks of a shared cache.
 */
export function publicPageCache({
  paths,
  freshMs = 10_000,
  staleMs = 60_000,
  maxEntries = 32,
}: {
  paths: string[];
  /** How long a page is served as it is. */
  freshMs?: number;
  /** How much longer it may be served while one request renders its replacement. */
  staleMs?: number;
  /** Query strings make new entries; past this many, new ones are rendered but not kept. */
  maxEntries?: number;
}): RequestHandler & { handles(req: Request): boolean; freshHit(req: IncomingMessage): CachedPage | undefined; sendHit: typeof sendCached } {
  const cached = new Map<string, CachedPage>();
  const cacheable = new Set(paths);
  /**
   * The requests this cache answers, its own hits and the renders it keeps: it compresses their bodies itself
   * (once a page, kept), so server.ts leaves them out of the compression middleware, whose wrapping of every
   * answer cost more of a cached page's CPU than the page (issue 31).
   */
  const handles = (req: Request) => handlesPath(req, req.path);
  const handlesPath = (req: IncomingMessage, pathname: string) => {
    const cookie = req.headers.cookie;
    return req.method === "GET" && cacheable.has(pathname) && (!cookie || onlyLanguageCookie(cookie)) && !req.headers.authorization;
  };
  /** One copy per language: the page's words follow the `lang` cookie, else Accept-Language (issue 36). */
  const keyOf = (req: IncomingMessage, url: string) =>
    `${languageOfHeaders({ cookie: req.headers.cookie, acceptLanguage: req.headers["accept-language"] })} ${url}`;

  /**
   * The kept page this request may have as it is, before Express (server.ts): a fresh copy, or a stale one while
   * another request renders its replacement. Anything else (no copy, one to refresh, a request this cache does
   * not answer) is undefined, and the request goes through the app and this middleware as usual.
   */
  const freshHit = (req: IncomingMessage): CachedPage | undefined => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if (!handlesPath(req, query < 0 ? url : url.slice(0, query))) return undefined;
    const entry = cached.get(keyOf(req, url));
    if (!entry) return undefined;
    const age = Date.now() - entry.storedAt;
    return age <= freshMs || (entry.refreshing && age <= freshMs + staleMs) ? entry : undefined;
  };
  // Visitors who asked for a page while the only copy was being rendered (none kept, or too old to serve):
  // they get that render's page instead of each rendering it again (a stampede when the page expires).
  const waiting = new Map<string, Array<(page: CachedPage | null) => void>>();

  const middleware: RequestHandler = (req, res, next) => {
    if (!handles(req)) return next();
    const key = keyOf(req, req.originalUrl);
    const entry = cached.get(key);
    const now = Date.now();
    if (entry && now - entry.storedAt > freshMs + staleMs) cached.delete(key);
    else if (entry && (now - entry.storedAt <= freshMs || entry.refreshing)) return sendCached(req, res, entry);
    else if (entry) entry.refreshing = true; // this request renders the replacement; the others get the stale copy

    const usable = entry && cached.get(key) === entry;
    if (!usable) {
      const queue = waiting.get(key);
      // A render of this page is on its way: its page, or this request's own render when it cannot be shared.
      if (queue) return void queue.push((page) => (page ? sendCached(req, res, page) : next()));
      waiting.set(key, []);
    }

    renderWithHashedCsp(req, res, next, (page) => {
      if (entry) entry.refreshing = false;
      if (page) {
        if (!cached.has(key) && cached.size >= maxEntries) {
          for (const [other, kept] of cached) if (Date.now() - kept.storedAt > freshMs + staleMs) cached.delete(other);
        }
        if (cached.has(key) || cached.size < maxEntries) cached.set(key, page);
      }
      if (!usable) {
        const queue = waiting.get(key) ?? [];
        waiting.delete(key);
        for (const resume of queue) resume(page);
      }
    });
  };
  return Object.assign(middleware, { handles, freshHit, sendHit: sendCached });
}

export type CachedPage = {
  status: number;
  /** Every header of the render but the request's own (PER_REQUEST_HEADERS); Vary names Accept-Encoding. */
  headers: Array<[string, string | string[]]>;
  body: Buffer;
  /** The body compressed, made once per encoding on the first visitor who accepts it. */
  encoded: Map<Encoding, Buffer>;
  storedAt: number;
  refreshing: boolean;
};

type Encoding = "br" | "gzip";

/** br, else gzip, when the request accepts it (q > 0, named or by *); null for the page as it is. */
export function preferredEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  const quality = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    quality.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  for (const encoding of ["br", "gzip"] as const) if ((quality.get(encoding) ?? quality.get("*") ?? 0) > 0) return encoding;
  return null;
}

/** Brotli quality 5: a little smaller than the compression middleware's 4 for about 1 ms once (9 takes some 50 ms). */
function compress(body: Buffer, encoding: Encoding): Buffer {
  return encoding === "br"
    ? zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : zlib.gzipSync(body, { level: 9 });
}

/**
 * Headers of a render that belong to its request, not to the page: every other one (the security headers, the
 * hashed CSP, Cache-Control, Vary, Accept-CH) is kept and repeated on each hit, which so needs none of the
 * middleware that set them (server.ts answers hits before Express).
 */
const PER_REQUEST_HEADERS = new Set(["x-request-id", "set-cookie", "content-length", "content-encoding", "transfer-encoding", "date", "connection", "keep-alive", "x-micro-cache"]);

/** A kept page, as it is, to a request that accepts it: from the middleware, or from server.ts before Express. */
function sendCached(req: IncomingMessage, res: ServerResponse, page: CachedPage) {
  res.statusCode = page.status;
  for (const [name, value] of page.headers) res.setHeader(name, value);
  res.setHeader("X-Micro-Cache", "hit");
  sendBody(req, res, page, (body) => res.end(body));
}

/** The headers an answer went out with, but the request's own (PER_REQUEST_HEADERS). */
function keptHeaders(res: ServerResponse): CachedPage["headers"] {
  return Object.entries(res.getHeaders()).flatMap(([name, value]) => {
    if (value === undefined || PER_REQUEST_HEADERS.has(name)) return [];
    return [[name, Array.isArray(value) ? value : String(value)] as [string, string | string[]]];
  });
}

/** Vary with Accept-Encoding added (the kept page is sent compressed or not, as each request accepts). */
function withAcceptEncoding(vary: string | undefined): string {
  const names = (vary ?? "").split(",").map((name) => name.trim()).filter(Boolean);
  if (names.includes("*") || names.some((name) => name.toLowerCase() === "accept-encoding")) return names.join(", ");
  return [...names, "Accept-Encoding"].join(", ");
}

/** The page's body as the request accepts it (its Vary names Accept-Encoding): compressed once per encoding, and kept with the page. */
function sendBody(req: IncomingMessage, res: ServerResponse, page: CachedPage, end: (body: Buffer) => void) {
  const encoding = preferredEncoding(req.headers["accept-encoding"]);
  let body = page.body;
  if (encoding) {
    body = page.encoded.get(encoding) ?? compress(page.body, encoding);
    page.encoded.set(encoding, body);
    res.setHeader("Content-Encoding", encoding);
  }
  res.setHeader("Content-Length", body.length);
  end(body);
}

/**
 * Lets the app render the page without a nonce, holds the body back until it is complete, then
 * sends it with a CSP that lists its inline scripts' hashes. `done` gets the page when it may be
 * kept for everyone, else null.
 */
function renderWithHashedCsp(req: Request, res: Response, next: NextFunction, done: (page: CachedPage | null) => void) {
  // server.ts's getLoadContext passes this nonce to the render: none, for a page that will be shared.
  res.locals.cspNonce = "";
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let settled = false;
  const settle = (page: CachedPage | null) => {
    if (settled) return;
    settled = true;
    done(page);
  };
  res.on("close", () => settle(null));

  const collect = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === "function") return;
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"));
  };
  res.write = ((chunk: unknown, encoding?: unknown) => {
    collect(chunk, encoding);
    return true;
  }) as Response["write"];
  res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
    collect(chunk, encoding);
    res.write = write as Response["write"];
    res.end = end as Response["end"];
    const body = Buffer.concat(chunks);
    const isHtml = /^text\/html/i.test(String(res.getHeader("Content-Type") ?? ""));
    if (isHtml) {
      const csp = res.getHeader("Content-Security-Policy");
      if (typeof csp === "string") res.setHeader("Content-Security-Policy", withScriptHashes(csp, inlineScriptHashes(body.toString("utf8"))));
    }
    const shareable =
      isHtml &&
      res.statusCode === 200 &&
      !res.getHeader("Set-Cookie") &&
      /^public\b/.test(String(res.getHeader("Cache-Control") ?? ""));
    if (shareable) res.setHeader("Vary", withAcceptEncoding(res.getHeader("Vary")?.toString()));
    const page: CachedPage | null = shareable
      ? { status: res.statusCode, headers: [], body, encoded: new Map(), storedAt: Date.now(), refreshing: false }
      : null;
    const send = (sent: Buffer) => (typeof callback === "function" ? end(sent, callback) : end(sent));
    // The page as every visitor after will get it (compressed here, as the compression middleware leaves
    // these requests alone); an answer not kept (an error page, a redirect) goes as the app made it.
    if (page) sendBody(req, res, page, send);
    else send(body);
    // Its headers as they went out: what the middleware after this one set when they were written (the cache
    // policy's Vary) included.
    if (page) page.headers = keptHeaders(res);
    settle(page);
    return res;
  }) as Response["end"];
  next();
}

/** sha256 sources for every inline <script> of a page (scripts with src are covered by 'self'). */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(` ${match[1]}`)) continue;
    hashes.add(`'sha256-${crypto.createHash("sha256").update(match[2] ?? "", "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

/** The policy with script-src's nonce replaced by these hashes; every other directive is kept as is. */
export function withScriptHashes(policy: string, hashes: string[]): string {
  return policy
    .split(";")
    .map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (name !== "script-src") return directive.trim();
      return [name, ...sources.filter((source) => !source.startsWith("'nonce-")), ...hashes].join(" ");
    })
    .filter(Boolean)
    .join(";");
}
