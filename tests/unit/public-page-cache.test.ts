import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import compression from "compression";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { inlineScriptHashes, preferredEncoding, publicPageCache, withScriptHashes } from "../../server/public-page-cache";

// The micro-cache in front of a real Express app whose handler renders like the portal does: a CSP with
// a nonce set earlier in the chain, HTML streamed in pieces, inline scripts carrying the nonce.
let renders = 0;
let cacheControl = "public, max-age=60, s-maxage=300";
const app = express();
/** Requests that went through the app (a hit is answered before it, as server.ts does). */
let appRequests = 0;
app.use((_req, res, next) => {
  appRequests++;
  res.setHeader("X-Frame-Options", "DENY");
  res.locals.cspNonce = crypto.randomBytes(16).toString("base64");
  res.setHeader("Content-Security-Policy", `default-src 'self';script-src 'self' 'nonce-${res.locals.cspNonce}';object-src 'none'`);
  next();
});
// As in server.ts, the compression middleware comes before the cache, and leaves the cache's requests to it.
const pageCache = publicPageCache({ paths: ["/page"], freshMs: 1_000, staleMs: 5_000 });
const compress = compression();
app.use((req, res, next) => (pageCache.handles(req) ? next() : compress(req, res, next)));
// Requests that reached the app for ?tab=crowd, and what holds their render back (a stampede test).
let crowdArrived = 0;
let releaseCrowd: () => void = () => undefined;
let crowdGate: Promise<void> = Promise.resolve();
app.use((req, _res, next) => {
  if (req.query.tab === "crowd") crowdArrived++;
  next();
});
// freshMs leaves room for a loaded CI machine: at 200 ms, two fetches in a row on a 2-core machine at load
// average 13 were once far enough apart that the second one renders the replacement instead of a hit.
// As server.ts's cache policy, which the cache comes before: a header set as the answer's head is written.
const varyOnLanguage: express.RequestHandler = (_req, res, next) => {
  const writeHead = res.writeHead;
  res.writeHead = function (this: express.Response, ...args: Parameters<express.Response["writeHead"]>) {
    res.setHeader("Vary", `${String(res.getHeader("Vary") ?? "")}, Accept-Language`.replace(/^, /, ""));
    return writeHead.apply(this, args);
  } as express.Response["writeHead"];
  next();
};
app.get("/page", pageCache, varyOnLanguage, async (req, res) => {
  renders++;
  if (req.query.tab === "crowd") await crowdGate;
  const nonce = res.locals.cspNonce as string;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", cacheControl);
  res.write(`<html><body><p>render ${renders}</p><script nonce="${nonce}">window.a = 1;</script>`);
  res.write(`<script nonce="${nonce}" type="module" src="/build/x.js"></script><script nonce="${nonce}">window.b = "${req.query.tab ?? ""}";</script>`);
  // Long enough for the compression middleware (over its 1 kB threshold).
  res.end(`<p>${"Plans and prices. ".repeat(80)}</p></body></html>`);
});

let base = "";
// As server.ts: a kept page is answered before Express; everything else goes through the app.
const server = http.createServer((req, res) => {
  const hit = pageCache.freshHit(req);
  if (hit) pageCache.sendHit(req, res, hit);
  else app(req, res);
});
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server.listen(0, "127.0.0.1", resolve);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

const sha = (script: string) => `'sha256-${crypto.createHash("sha256").update(script).digest("base64")}'`;

describe("public page micro-cache", () => {
  it("renders once without a nonce, then serves that page to every cookie-less visitor with a hash-based CSP", async () => {
    const first = await fetch(`${base}/page`);
    const firstHtml = await first.text();
    expect(firstHtml).toContain('nonce=""');
    const policy = first.headers.get("content-security-policy")!;
    expect(policy).toBe(`default-src 'self';script-src 'self' ${sha("window.a = 1;")} ${sha('window.b = "";')};object-src 'none'`);
    const appRequestsBefore = appRequests;
    const second = await fetch(`${base}/page`);
    expect(second.headers.get("x-micro-cache")).toBe("hit");
    expect(await second.text()).toBe(firstHtml);
    // Answered before the app, with every header the render had (those the app's middleware set included).
    expect(appRequests).toBe(appRequestsBefore);
    expect(second.headers.get("content-security-policy")).toBe(policy);
    expect(second.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=300");
    expect(second.headers.get("x-frame-options")).toBe("DENY");
    expect(second.headers.get("content-type")).toBe("text/html; charset=utf-8");
    // Kept as the render's head went out: with what was set as it was written.
    expect(first.headers.get("vary")).toBe("Accept-Encoding, Accept-Language");
    expect(second.headers.get("vary")).toBe(first.headers.get("vary"));
  });

  it("answers a kept page before the app only for the requests the middleware would answer from it", async () => {
    await fetch(`${base}/page?tab=kept`);
    const before = appRequests;
    await fetch(`${base}/page?tab=kept`, { headers: { Cookie: "__session=abc" } });
    await fetch(`${base}/page?tab=kept`, { headers: { Authorization: "Bearer abc" } });
    await fetch(`${base}/page?tab=kept`, { method: "HEAD" });
    expect(appRequests).toBe(before + 3);
    // A `lang` cookie alone is still an anonymous visitor: the kept copy of that language.
    const withLanguage = await fetch(`${base}/page?tab=kept`, { headers: { Cookie: "lang=en" } });
    expect(withLanguage.headers.get("x-micro-cache")).toBe("hit");
    expect(appRequests).toBe(before + 3);
  });

  it("keeps a page per query string and never serves it to a visitor with a cookie", async () => {
    const monthly = await (await fetch(`${base}/page?tab=monthly`)).text();
    expect(monthly).toContain('window.b = "monthly"');
    const withCookie = await fetch(`${base}/page`, { headers: { Cookie: "__session=abc" } });
    expect(withCookie.headers.get("x-micro-cache")).toBeNull();
    expect(withCookie.headers.get("content-security-policy")).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(await withCookie.text()).not.toContain('nonce=""');
  });

  it("serves the stale page while one request renders its replacement, and keeps nothing private", async () => {
    // The cache reads Date.now(): move only the date past freshMs instead of sleeping (timers stay real).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 1_100);
    const before = renders;
    const [refreshing, stale] = await Promise.all([fetch(`${base}/page`), fetch(`${base}/page`)]);
    expect([refreshing.headers.get("x-micro-cache"), stale.headers.get("x-micro-cache")].sort()).toEqual(["hit", null]);
    expect(renders).toBe(before + 1);
    expect(await (await fetch(`${base}/page`)).text()).toContain(`render ${before + 1}`);

    cacheControl = "private, no-store";
    try {
      await fetch(`${base}/page?tab=private`);
      const again = await fetch(`${base}/page?tab=private`);
      expect(again.headers.get("x-micro-cache")).toBeNull();
      // Still rendered without a nonce, so its CSP lists the hashes.
      expect(again.headers.get("content-security-policy")).toContain(sha('window.b = "private";'));
    } finally {
      cacheControl = "public, max-age=60, s-maxage=300";
      vi.useRealTimers();
    }
  });

  it("renders a page once for visitors who ask for it at the same time while no copy is kept", async () => {
    crowdGate = new Promise((resolve) => {
      releaseCrowd = resolve;
    });
    const before = renders;
    const answers = Promise.all(Array.from({ length: 5 }, () => fetch(`${base}/page?tab=crowd`)));
    // Every request is in before the render they share finishes.
    await vi.waitFor(() => expect(crowdArrived).toBe(5));
    releaseCrowd();
    const pages = await Promise.all((await answers).map(async (answer) => ({ hit: answer.headers.get("x-micro-cache"), html: await answer.text() })));
    expect(renders).toBe(before + 1);
    expect(pages.filter((page) => page.hit === "hit")).toHaveLength(4);
    expect(new Set(pages.map((page) => page.html)).size).toBe(1);
    expect(pages[0]!.html).toContain('window.b = "crowd"');
  });

  it("keeps the page compressed once per encoding instead of compressing every answer", async () => {
    const brotli = vi.spyOn(zlib, "brotliCompressSync");
    const gzip = vi.spyOn(zlib, "gzipSync");
    const streams = vi.spyOn(zlib, "createBrotliCompress");
    try {
      // The render that is kept goes out compressed as the visitors after it get it (br, which fetch accepts).
      const rendered = await rawGet("/page?tab=zipped", { "Accept-Encoding": "gzip, deflate, br" });
      expect(rendered.headers["x-micro-cache"]).toBeUndefined();
      expect(rendered.headers["content-encoding"]).toBe("br");
      expect(Number(rendered.headers["content-length"])).toBe(rendered.body.length);
      const html = await (await fetch(`${base}/page?tab=zipped`, { headers: { "Accept-Encoding": "identity" } })).text();
      expect(zlib.brotliDecompressSync(rendered.body).toString("utf8")).toBe(html);
      for (const [accepted, encoding, decode] of [
        ["gzip, deflate, br", "br", zlib.brotliDecompressSync],
        ["gzip, deflate", "gzip", zlib.gunzipSync],
      ] as const) {
        for (let visit = 0; visit < 3; visit++) {
          const answer = await rawGet("/page?tab=zipped", { "Accept-Encoding": accepted });
          expect(answer.headers["x-micro-cache"]).toBe("hit");
          expect(answer.headers["content-encoding"]).toBe(encoding);
          expect(answer.headers.vary).toMatch(/Accept-Encoding/);
          expect(decode(answer.body).toString("utf8")).toBe(html);
        }
      }
      expect(brotli).toHaveBeenCalledTimes(1);
      expect(gzip).toHaveBeenCalledTimes(1);
      expect(streams).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("prefers brotli, then gzip, among the encodings a request accepts", () => {
    expect(preferredEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(preferredEncoding("gzip;q=1.0, br;q=0")).toBe("gzip");
    expect(preferredEncoding("*")).toBe("br");
    expect(preferredEncoding("br;q=0, *;q=0.5")).toBe("gzip");
    expect(preferredEncoding("identity")).toBeNull();
    expect(preferredEncoding(undefined)).toBeNull();
  });

  it("hashes inline scripts only and replaces just script-src's nonce", () => {
    expect(inlineScriptHashes('<script src="/a.js"></script><script>x()</script><script type="module">y()</script>')).toEqual([sha("x()"), sha("y()")]);
    expect(withScriptHashes("default-src 'self'; script-src 'self' 'nonce-abc' https://js.stripe.com; img-src 'self'", ["'sha256-x'"])).toBe(
      "default-src 'self';script-src 'self' https://js.stripe.com 'sha256-x';img-src 'self'",
    );
  });
});

/** A GET whose body stays as the server sent it (fetch would decompress it). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}
