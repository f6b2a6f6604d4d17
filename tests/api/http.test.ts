import express from "express";
import { describe, expect, it } from "vitest";
import { standaloneApp } from "../../api/http/standalone";
import { databases, listen, request, startApi, useApi } from "./harness";

describe.each(databases())("HTTP behaviour ($name)", (kind) => {
  const t = useApi(kind, {
    env: {
      DOWNLOAD_WINDOWS_URL: "https://cdn.example.net/win/Setup.exe",
      DOWNLOAD_MAC_URL: "https://cdn.example.net/mac/App.dmg",
    },
  });

  it("answers malformed JSON with 400", async () => {
    const res = await t.post("/api/user/login", {
      raw: '{"email": "demo@example.com", ',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: false,
      success: false,
      message: "The request body is not valid JSON.",
      errors: { message: "The request body is not valid JSON.", code: "malformed_body" },
    });
  });

  it("answers JSON whose text is not valid Unicode (half a surrogate pair) with 400, wherever the text would go", async () => {
    // Found by the fuzzer: "\ud800" as a SetupIntent id reached the Stripe SDK, whose URL encoding threw (a 500).
    const login = await t.post("/api/user/login", { json: { email: "demo@example.com", password: "demo-password" } });
    const token = login.body.data.token as string;
    for (const raw of ['{"setup_intent": "\\ud800"}', '{"setup_intent": "seti_\\udc00x"}', '{"\\ud800": "seti_1"}']) {
      const res = await t.post("/api/payment-methods/complete-authentication", { token, raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(400);
      expect(res.body.errors).toEqual({ message: "The request body is not valid JSON.", code: "malformed_body" });
    }
    // A well-formed pair (an emoji) is text like any other: the id is refused as unknown, not as malformed.
    const emoji = await t.post("/api/payment-methods/complete-authentication", { token, raw: '{"setup_intent": "seti_\\ud83d\\ude00"}', headers: { "content-type": "application/json" } });
    expect(emoji.status).toBe(404);
  });

  it("answers bodies over 64 kB with 413 (JSON and form)", async () => {
    const big = "x".repeat(70 * 1024);
    const json = await t.post("/api/user/login", { json: { email: "demo@example.com", password: big } });
    expect(json.status).toBe(413);
    expect(json.body.message).toBe("The request body is too large.");
    const form = await t.post("/api/user/login", { form: { email: "demo@example.com", password: big } });
    expect(form.status).toBe(413);
    expect(form.body.errors.message).toBe("The request body is too large.");
    expect(form.body.errors.code).toBe("body_too_large");
  });

  it("refuses bodies that are neither JSON nor form data", async () => {
    const res = await t.post("/api/user/login", { raw: "email=demo", headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(415);
    expect(res.body.success).toBe(false);
    expect(res.body.errors.code).toBe("unsupported_media_type");
  });

  it("answers unknown /api paths with a JSON 404", async () => {
    for (const path of ["/api/nope", "/api", "/api/user/login/extra"]) {
      const res = await t.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(res.body).toEqual({
        status: false,
        success: false,
        message: "Not found.",
        errors: { message: "Not found.", code: "not_found" },
      });
    }
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const login = await t.get("/api/user/login");
    expect(login.status).toBe(405);
    expect(login.headers.get("allow")).toBe("POST");
    expect(login.body.success).toBe(false);
    expect(login.body.message).toEqual(expect.any(String));
    expect(login.body.errors.code).toBe("method_not_allowed");

    const me = await t.request("DELETE", "/api/me");
    expect(me.status).toBe(405);
    expect(me.headers.get("allow")).toBe("GET, HEAD");
  });

  it("routes as the document lists its paths: case-sensitive, no trailing slash, other methods (OPTIONS too) 405 with Allow", async () => {
    // The API's app alone (what the harness serves): /API/... is not its path, so it goes to next().
    await expectStrictRouting(t.baseUrl, { apiAnswersOtherCase: false });
  });

  it("routes the same when the portal embeds the API and when it runs alone", async () => {
    // Embedded: the portal sends /api paths to the API (server.ts) and everything else to its pages.
    const portal = express();
    portal.use((req, res, next) => (/^\/api(\/|$)/.test(req.path) ? t.api.app(req, res, next) : next()));
    portal.use(t.api.app);
    portal.use((req, res) => {
      res.status(404).type("text/plain").send(`portal ${req.method} ${req.path}`);
    });
    const embedded = await listen(portal);
    // Alone: what npm run api serves (api/server.ts).
    const standalone = await listen(standaloneApp(t.api));
    try {
      await expectStrictRouting(`http://127.0.0.1:${embedded.port}`, { apiAnswersOtherCase: false });
      const other = await request(`http://127.0.0.1:${embedded.port}`, "GET", "/API/health");
      expect(other.text).toBe("portal GET /API/health");
      await expectStrictRouting(`http://127.0.0.1:${standalone.port}`, { apiAnswersOtherCase: true });
    } finally {
      await embedded.close();
      await standalone.close();
    }
  });

  it("serves the download links without authentication", async () => {
    const res = await t.get("/api/download-links");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      success: true,
      message: expect.any(String),
      data: { windows: "https://cdn.example.net/win/Setup.exe", mac: "https://cdn.example.net/mac/App.dmg" },
    });
  });

  it("serves the countries without authentication, the same list as the billing details' (issue 35)", async () => {
    const res = await t.get("/api/countries");
    expect(res.status).toBe(200);
    expect(res.body.data.countries).toContainEqual({ code: "DE", name: "Germany", eu: true });
    expect(res.body.data.countries).toContainEqual({ code: "US", name: "United States", eu: false });
    await t.createUser({ email: "countries@example.com", password: "countries-password" });
    const token = await t.login("countries@example.com", "countries-password");
    const details = await t.get("/api/account/billing-details", { token });
    expect(res.body.data.countries).toEqual(details.body.data.countries);
  });

  it("reports health", async () => {
    const res = await t.get("/api/health");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ database: "ok" });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("leaves paths outside /api (and outside the sandboxes' /dev pages) to the next handler", async () => {
    const portal = express();
    portal.use(t.api.app);
    portal.use((req, res) => {
      res.status(200).type("text/plain").send(`portal ${req.method} ${req.path}`);
    });
    const server = await listen(portal);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      for (const path of ["/", "/login", "/apis", "/dev/clocks", "/dev", "/devices", "/api-docs", "/dev/stripe"]) {
        const res = await request(base, "GET", path);
        expect(res.status, path).toBe(200);
        expect(res.text).toBe(`portal GET ${path}`);
      }
      const post = await request(base, "POST", "/login", { raw: "{not json", headers: { "content-type": "application/json" } });
      expect(post.text).toBe("portal POST /login");
      // And /api still works through the portal's mount.
      expect((await request(base, "GET", "/api/health")).status).toBe(200);
      expect((await request(base, "GET", "/api/nope")).status).toBe(404);
      // The mail sandbox (SMTP_URL unset) answers its own pages.
      const mailbox = await request(base, "GET", "/dev/mailbox.json");
      expect(mailbox.status).toBe(200);
      expect(Array.isArray(mailbox.body)).toBe(true);
    } finally {
      await server.close();
    }
  });
});

/**
 * The paths and methods of api/openapi.json, exactly: another case or a trailing slash is a path the
 * document does not list (404), and a method a path does not declare, OPTIONS included, is 405 with
 * Allow naming the declared ones. `apiAnswersOtherCase`: /API/... gets the API's JSON 404 (npm run api),
 * rather than whatever comes next (the portal's pages, embedded).
 */
async function expectStrictRouting(base: string, opts: { apiAnswersOtherCase: boolean }) {
  const notFound = { status: false, success: false, message: "Not found.", errors: { message: "Not found.", code: "not_found" } };
  for (const path of ["/API/health", "/Api/plans", "/api/Health"]) {
    const res = await request(base, "GET", path);
    expect(res.status, path).toBe(404);
    if (opts.apiAnswersOtherCase || path.startsWith("/api/")) expect(res.body, path).toEqual(notFound);
  }
  for (const path of ["/api/health/", "/api/plans/", "/api/subscription/plans/", "/api/plans//"]) {
    const res = await request(base, "GET", path);
    expect(res.status, path).toBe(404);
    expect(res.body, path).toEqual(notFound);
  }
  expect((await request(base, "GET", "/api/health")).status).toBe(200);

  const options = await request(base, "OPTIONS", "/api/plans");
  expect(options.status).toBe(405);
  expect(options.headers.get("allow")).toBe("GET, HEAD");
  expect(options.body.errors.code).toBe("method_not_allowed");
  const login = await request(base, "OPTIONS", "/api/user/login");
  expect(login.status).toBe(405);
  expect(login.headers.get("allow")).toBe("POST");
  const trace = await request(base, "PATCH", "/api/health");
  expect(trace.status).toBe(405);
  expect(trace.headers.get("allow")).toBe("GET, HEAD");
}

describe.each(databases({ postgres: "the pg pool's errors when the database is gone" }))("failures ($name)", (kind) => {
  it("answers 503 from health and 500 from other routes when the database is gone, logging no secrets", async () => {
    const t = await startApi(kind);
    try {
      const token = await t.login("demo@example.com", "demo-password");
      await t.db.destroy();

      const health = await t.get("/api/health");
      expect(health.status).toBe(503);
      expect(health.body).toEqual({
        status: false,
        success: false,
        message: "Database unavailable.",
        errors: { message: "Database unavailable.", code: "database_unavailable" },
      });

      const secret = "very-secret-password-123";
      const login = await t.post("/api/user/login", { json: { email: "demo@example.com", password: secret } });
      expect(login.status).toBe(500);
      expect(login.body).toEqual({
        status: false,
        success: false,
        message: "Something went wrong.",
        errors: { message: "Something went wrong.", code: "server_error" },
      });
      const me = await t.get("/api/me", { token });
      expect(me.status).toBe(500);

      const logs = t.logger.lines.join("\n");
      expect(logs).toContain("/api/user/login");
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(token);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
