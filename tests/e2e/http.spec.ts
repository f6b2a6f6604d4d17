import { createHash } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import { expect, test } from "@playwright/test";
import { DEMO, createUser, emptyBrowserCache, expectHome, hasJavaScript, open, signIn } from "../support/e2e";

/** A value for each route parameter, for requests that only need the route to match. */
const SAMPLE_PARAMS: Record<string, string> = {
  planId: "5",
  uuid: "00000000-0000-4000-8000-000000000000",
  id: "1",
  gateway: "stripe",
  provider: "google",
  token: "not-a-real-token",
};

/** A URL path the route matches: its own and its parents' paths, with sample parameters (an optional one without a sample left out). */
function samplePath(routeId: string, routes: ServerBuild["routes"]): string {
  const segments: string[] = [];
  for (let route = routes[routeId]; route; route = route.parentId ? routes[route.parentId] : undefined) {
    if (route.path) segments.unshift(...route.path.split("/"));
  }
  const filled = segments.flatMap((segment) => {
    if (segment === "*") return ["no-such-page"];
    if (!segment.startsWith(":")) return segment ? [segment] : [];
    const sample = SAMPLE_PARAMS[segment.replace(/^:|\?$/g, "")];
    return sample ? [sample] : segment.endsWith("?") ? [] : ["x"];
  });
  return `/${filled.join("/")}`;
}

// HTTP-level behaviour of the built server. These do not depend on the browser's JavaScript, so they
// run once (tagged @once: the no-js project only), except the CSP checks, which need scripts to run.
test.describe("the server over HTTP", () => {
  test("every page's bytes are well-formed: no U+0000, nothing after </html>", { tag: "@once" }, async ({ page, request }, testInfo) => {
    // React 18's Node renderer once wrote NUL bytes where a multibyte character crossed its 2 kB view,
    // and Remix's single-fetch scripts came after </html> (app/entry.server.tsx).
    const check = async (path: string, body: Buffer) => {
      expect(body.includes(0), `${path} has a U+0000 byte`).toBe(false);
      expect(body.toString("utf8").trimEnd().endsWith("</body></html>"), `${path} has something after </html>`).toBe(true);
    };
    for (const path of ["/login", "/login?tab=signup", "/pricing", "/pricing?tab=monthly", "/get-code", "/forget-password", "/subscription/payment/5", "/no-such-page"]) {
      await check(path, await (await request.get(path)).body());
    }
    await signIn(page, testInfo, DEMO);
    for (const path of ["/", "/pricing", "/billing", "/connected-devices", "/subscription/payment/5", "/account/two-factor"]) {
      await check(`${path} (signed in)`, await (await page.request.get(path)).body());
    }
  });

  test("healthz checks the database through the API", { tag: "@once" }, async ({ request }) => {
    const response = await request.get("/healthz");
    expect(response.status()).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    // This instance's health now: a CDN in front (Varnish keeps an answer without Cache-Control for 2 minutes) must not answer for it.
    expect(response.headers()["cache-control"]).toBe("no-store");
  });

  test("pages are private, build assets immutable, the pricing page cacheable", { tag: "@once" }, async ({ request, page }) => {
    const login = await request.get("/login");
    expect(login.headers()["cache-control"]).toBe("private, no-store");
    expect(login.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(login.headers()["x-frame-options"]).toBe("SAMEORIGIN");
    expect(login.headers()["set-cookie"]).toBeUndefined();
    const html = await login.text();
    const asset = html.match(/\/build\/[^"]+\.js/)?.[0];
    expect(asset).toBeTruthy();
    const assetResponse = await request.get(asset!);
    expect(assetResponse.headers()["cache-control"]).toContain("immutable");
    const pricing = await request.get("/pricing");
    expect(pricing.headers()["cache-control"]).toMatch(/^public/);
    expect(pricing.headers()["set-cookie"]).toBeUndefined();
    await page.goto("/login");
  });

  test("anonymous /pricing is shared from a micro-cache with a hash-based CSP; signed in it keeps a nonce", { tag: "@once" }, async ({ request, playwright, baseURL }) => {
    const first = await request.get("/pricing");
    const second = await request.get("/pricing");
    expect(second.headers()["x-micro-cache"]).toBe("hit");
    for (const response of [first, second]) {
      const policy = response.headers()["content-security-policy"]!;
      const scriptSrc = policy.split(";").find((directive) => directive.trim().startsWith("script-src"))!;
      // No nonce at all: a page shared by a CDN or this cache must not carry one for everybody.
      expect(scriptSrc).not.toContain("'nonce-");
      const html = await response.text();
      expect(html).not.toMatch(/nonce="[^"]+"/);
      const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
      expect(inline.length).toBeGreaterThan(0);
      for (const script of inline) expect(scriptSrc).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    }
    expect(second.headers()["cache-control"]).toBe(first.headers()["cache-control"]);
    expect(second.headers()["set-cookie"]).toBeUndefined();

    // Signed in: rendered for this visitor, never from the cache, with a fresh nonce.
    const signedIn = await playwright.request.newContext({ baseURL });
    try {
      const login = await signedIn.post("/login", { headers: { Origin: baseURL! }, form: { email: DEMO.email, password: DEMO.password }, maxRedirects: 0 });
      expect(login.status()).toBe(302);
      const own = await signedIn.get("/pricing");
      expect(own.headers()["x-micro-cache"]).toBeUndefined();
      expect(own.headers()["cache-control"]).toBe("private, no-store");
      expect(own.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
      expect(await own.text()).toContain("My Account");
    } finally {
      await signedIn.dispose();
    }
  });

  test("a post from another site is refused", { tag: "@once" }, async ({ request, baseURL }) => {
    const crossSite = await request.post("/login", {
      headers: { Origin: "https://evil.example" },
      form: { email: DEMO.email, password: DEMO.password },
      maxRedirects: 0,
    });
    expect(crossSite.status()).toBe(403);
    const fetchSite = await request.post("/logout", { headers: { "Sec-Fetch-Site": "cross-site" }, maxRedirects: 0 });
    expect(fetchSite.status()).toBe(403);
    const sameSite = await request.post("/login", {
      headers: { Origin: baseURL! },
      form: { email: DEMO.email, password: DEMO.password },
      maxRedirects: 0,
    });
    expect(sameSite.status()).toBe(302);
    expect(sameSite.headers()["set-cookie"]).toMatch(/__session=.*HttpOnly.*SameSite=Lax/i);
  });

  test("hostile or malformed posts get a clear answer, never a 500", { tag: "@once" }, async ({ request, baseURL }) => {
    const headers = { Origin: baseURL! };
    const attempts = [
      request.post("/login", { headers: { ...headers, "Content-Type": "multipart/form-data; boundary=x" }, data: "garbage" }),
      request.post("/login", { headers: { ...headers, "Content-Type": "application/json" }, data: Buffer.from('{"email":') }),
      request.post("/login", { headers, form: { email: "x".repeat(5000), password: "y" } }),
      request.post("/login", { headers, form: { "email[]": "a@b.co", password: "" } }),
      request.post("/login?oldurl=%E0%A4%A", { headers, form: { email: "a@b.co", password: "nope" } }),
      request.post("/login", { headers: { ...headers, "Content-Type": "text/plain" }, data: "\u0000\u0001" }),
      request.post("/billing", { headers, form: { anything: "1" }, maxRedirects: 0 }),
      request.post("/no-such-page", { headers, form: { anything: "1" } }),
      request.post("/logout", { headers, form: { x: "1" }, maxRedirects: 0 }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status(), `${response.url()} answered ${response.status()}`).toBeLessThan(500);
    }
    const huge = await request.post("/login", { headers, data: "a=".padEnd(2 * 1024 * 1024, "x") });
    expect(huge.status()).toBe(413);
    const empty = await request.post("/login", { headers, form: {} });
    expect(empty.status()).toBe(400);
    expect(await empty.text()).toContain("User and password");
  });

  test("a legacy data request (?_data=<route id>) to any route, signed in or not, never answers 5xx", { tag: "@once" }, async ({ page, request }, testInfo) => {
    // The portal's own pages fetch data by single fetch (.data); Remix still answers ?_data=<route id>, making a
    // loader's plain object the init of a Response: a top-level `status` key of the account home's loader was
    // read as the HTTP status (RangeError, a 500). Every route of the build, as a visitor and as a customer.
    const build = (await import(pathToFileURL(path.resolve("build/server/index.js")).href)) as ServerBuild;
    const urls = Object.keys(build.routes).map((id) => `${samplePath(id, build.routes)}?_data=${encodeURIComponent(id)}`);
    expect(urls).toContain("/?_data=routes%2F_index");
    const customer = await createUser({ subscriptionDays: { startDaysAgo: 1, days: 30 } });
    await signIn(page, testInfo, customer);
    await expectHome(page);
    const failures: string[] = [];
    for (const [who, client] of [
      ["a visitor", request],
      ["a customer", page.request],
    ] as const) {
      for (const url of urls) {
        const response = await client.get(url, { maxRedirects: 0 });
        if (response.status() >= 500) failures.push(`${who}: GET ${url} answered ${response.status()}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("a chunked body is read, then refused (411; 413 past 1 MB), and the connection stays usable", { tag: "@once" }, async ({ baseURL }) => {
    // One keep-alive connection for all three requests, as a browser or a proxy would reuse it.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, chunks: string[]) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const headers: Record<string, string> = { Origin: baseURL!, "Content-Type": "application/x-www-form-urlencoded" };
        if (chunks.length) headers["Transfer-Encoding"] = "chunked";
        const request = http.request(`${baseURL}${path}`, { method, agent, headers }, (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
        });
        request.on("error", reject);
        for (const chunk of chunks) request.write(chunk);
        request.end();
      });
    try {
      const small = await send("POST", "/login", ["email=a%40b.co", "&password=", "secret"]);
      expect(small).toEqual({ status: 411, text: "A Content-Length header is required." });
      const big = await send("POST", "/login", Array.from({ length: 24 }, () => "x".repeat(64 * 1024)));
      expect(big).toEqual({ status: 413, text: "The request body is too large." });
      expect((await send("GET", "/healthz", [])).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  test("every identity route answers hostile posts without a 500", { tag: "@once" }, async ({ request, baseURL }) => {
    const headers = { Origin: baseURL! };
    const garbage = { intent: "\u0000", email: ["a", "b"].join("\n"), code: "x".repeat(500), password: "", state: "forged" };
    const targets = [
      "/login?tab=signup",
      "/get-code",
      "/forget-password",
      "/generate-password/not-a-token",
      "/login-sso",
      "/auth/google",
      "/auth/apple",
      "/auth/google?intent=connect",
      "/auth/apple/callback",
      "/",
      "/logout",
    ];
    for (const target of targets) {
      for (const intent of ["signup-code", "signup-password", "resend", "verify", "reset", "disconnect", "change-reset", "no-such-intent"]) {
        const response = await request.post(target, { headers, form: { ...garbage, intent }, maxRedirects: 0 });
        expect(response.status(), `${target} intent=${intent} answered ${response.status()}`).toBeLessThan(500);
      }
      const multipart = await request.post(target, {
        headers: { ...headers, "Content-Type": "multipart/form-data; boundary=nope" },
        data: Buffer.from("--broken"),
        maxRedirects: 0,
      });
      expect(multipart.status(), `${target} with a broken multipart body answered ${multipart.status()}`).toBeLessThan(500);
    }
    // The provider callbacks without a flow in progress send the visitor back with a message.
    const googleCallback = await request.get("/auth/google/callback?code=x&state=forged", { maxRedirects: 0 });
    expect(googleCallback.status()).toBe(302);
    expect(googleCallback.headers().location).toBe("/login");
    const desktop = await request.get("/desktop-app/google/login?failed=1&device_os=%00", { maxRedirects: 0 });
    expect(desktop.status()).toBe(200);
  });

  test("the API answers bad input with 4xx and a message", { tag: "@once" }, async ({ request }) => {
    const malformed = await request.post("/api/user/login", { headers: { "Content-Type": "application/json" }, data: Buffer.from("{") });
    expect(malformed.status()).toBe(400);
    expect((await malformed.json()).message).toBeTruthy();
    const unknown = await request.get("/api/no-such-endpoint");
    expect(unknown.status()).toBe(404);
    expect((await unknown.json()).errors.message).toBeTruthy();
  });

  test("no CSP violations on the cached anonymous pricing page (CSP by hashes)", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "needs scripts");
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    // A first visit: a copy of /pricing the browser kept from an earlier test (max-age=60) is not the server's answer.
    await emptyBrowserCache(page);
    await page.request.get("/pricing"); // fills the cache, so the page below is the shared copy
    const response = await open(page, "/pricing", testInfo);
    expect(response?.headers()["x-micro-cache"]).toBe("hit");
    await page.getByRole("navigation", { name: "Billing period" }).getByRole("link", { name: "Monthly", exact: true }).click();
    await expect(page.getByRole("heading", { level: 3, name: "1 Month" })).toBeVisible();
    expect(violations).toEqual([]);
  });

  test("no CSP violations while a page runs its scripts", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "needs scripts");
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await signIn(page, testInfo, DEMO);
    await expect(page.getByRole("heading", { name: "Welcome to the product!" })).toBeVisible();
    expect(violations).toEqual([]);
  });
});
