import crypto from "node:crypto";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { inlineScriptHashes, publicPageCache, withScriptHashes } from "../../server/public-page-cache";

// The micro-cache in front of a real Express app whose handler renders like the portal does: a CSP with
// a nonce set earlier in the chain, HTML streamed in pieces, inline scripts carrying the nonce.
let renders = 0;
let cacheControl = "public, max-age=60, s-maxage=300";
const app = express();
app.use((_req, res, next) => {
  res.locals.cspNonce = crypto.randomBytes(16).toString("base64");
  res.setHeader("Content-Security-Policy", `default-src 'self';script-src 'self' 'nonce-${res.locals.cspNonce}';object-src 'none'`);
  next();
});
// freshMs leaves room for a loaded CI machine: at 200 ms, two fetches in a row on a 2-core machine at load
// average 13 were once far enough apart that the second one renders the replacement instead of a hit.
app.get("/page", publicPageCache({ paths: ["/page"], freshMs: 1_000, staleMs: 5_000 }), (req, res) => {
  renders++;
  const nonce = res.locals.cspNonce as string;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", cacheControl);
  res.write(`<html><body><p>render ${renders}</p><script nonce="${nonce}">window.a = 1;</script>`);
  res.write(`<script nonce="${nonce}" type="module" src="/build/x.js"></script><script nonce="${nonce}">window.b = "${req.query.tab ?? ""}";</script>`);
  res.end("</body></html>");
});

let base = "";
let server: ReturnType<typeof app.listen>;
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", resolve);
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
    const second = await fetch(`${base}/page`);
    expect(second.headers.get("x-micro-cache")).toBe("hit");
    expect(await second.text()).toBe(firstHtml);
    expect(second.headers.get("content-security-policy")).toBe(policy);
    expect(second.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=300");
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

  it("hashes inline scripts only and replaces just script-src's nonce", () => {
    expect(inlineScriptHashes('<script src="/a.js"></script><script>x()</script><script type="module">y()</script>')).toEqual([sha("x()"), sha("y()")]);
    expect(withScriptHashes("default-src 'self'; script-src 'self' 'nonce-abc' https://js.stripe.com; img-src 'self'", ["'sha256-x'"])).toBe(
      "default-src 'self';script-src 'self' https://js.stripe.com 'sha256-x';img-src 'self'",
    );
  });
});
