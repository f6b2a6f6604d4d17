import { expect, test } from "@playwright/test";
import { DEMO, hasJavaScript, signIn } from "./support";

// HTTP-level behaviour of the built server. These do not depend on the browser's JavaScript, so they
// run once (in the no-js project), except the CSP check, which needs scripts to run.
test.describe("the server over HTTP", () => {
  test.beforeEach(({}, testInfo) => {
    test.skip(hasJavaScript(testInfo) && !testInfo.title.includes("CSP"), "HTTP checks run once, in the no-js project");
  });

  test("healthz checks the database through the API", async ({ request }) => {
    const response = await request.get("/healthz");
    expect(response.status()).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  test("pages are private, build assets immutable, the pricing page cacheable", async ({ request, page }) => {
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

  test("a post from another site is refused", async ({ request, baseURL }) => {
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

  test("hostile or malformed posts get a clear answer, never a 500", async ({ request, baseURL }) => {
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

  test("every identity route answers hostile posts without a 500", async ({ request, baseURL }) => {
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
    expect(googleCallback.headers()["location"]).toBe("/login");
    const desktop = await request.get("/desktop-app/google/login?failed=1&device_os=%00", { maxRedirects: 0 });
    expect(desktop.status()).toBe(200);
  });

  test("the API answers bad input with 4xx and a message", async ({ request }) => {
    const malformed = await request.post("/api/user/login", { headers: { "Content-Type": "application/json" }, data: Buffer.from("{") });
    expect(malformed.status()).toBe(400);
    expect((await malformed.json()).message).toBeTruthy();
    const unknown = await request.get("/api/no-such-endpoint");
    expect(unknown.status()).toBe(404);
    expect((await unknown.json()).errors.message).toBeTruthy();
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
