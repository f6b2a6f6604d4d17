import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { translatorFor } from "~/i18n/i18n.server";
import { setPortalConfigForTests } from "./portal-config";

// The toasts' messages are catalogue keys; the customer reads them in the page's language (English here).
const english = translatorFor("en");

// The portal's loaders against a stand-in for the product API over real HTTP: the portal must be
// deployable against any API that speaks the contract, including one that fails.
type Seen = { path: string; authorization?: string; forwardedFor?: string; userAgent?: string };
const seen: Seen[] = [];
const failing = new Set<string>();
// Off: the stand-in is an API without the aggregate /api/account/home (404), like the product's older API.
let hasAccountHome = false;

const standIn = http.createServer((req, res) => {
  seen.push({
    path: req.url ?? "",
    authorization: req.headers.authorization,
    forwardedFor: req.headers["x-forwarded-for"] as string | undefined,
    userAgent: req.headers["user-agent"],
  });
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (failing.has(req.url ?? "")) return reply(500, { status: false, message: "Something went wrong." });
  if (req.headers.authorization !== "Bearer good-token" && req.url !== "/api/download-links")
    return reply(401, { status: false, message: "Unauthenticated." });
  switch (req.url) {
    case "/api/account/home":
      if (!hasAccountHome) return reply(404, { status: false, message: "Not found." });
      return reply(200, {
        status: true,
        data: {
          user: { id: 1, email: "someone@example.com", name: null, has_password: false },
          now: "2026-11-21T12:00:00.000Z",
          subscription: { id: 9, title: "1 Year", sub_start_date: "2026-11-01T00:00:00.000Z", sub_exp_date: "2026-12-01T12:00:00.000Z" },
          linked: [{ id: 4, link_type: "APPLE" }],
          downloads: { windows: "https://dl.example/win.exe", mac: "https://dl.example/mac.dmg" },
        },
      });
    case "/api/me":
      return reply(200, { status: true, data: { id: 1, email: "someone@example.com", name: null, has_password: true } });
    case "/api/subscription/active":
      return reply(200, {
        status: true,
        data: {
          now: "2026-11-21T12:00:00.000Z",
          subscription: { id: 9, title: "1 Year", sub_start_date: "2026-11-01T00:00:00.000Z", sub_exp_date: "2026-12-01T12:00:00.000Z" },
        },
      });
    case "/api/account/link-list":
      return reply(200, { status: true, data: { linked: [{ id: 3, link_type: "GOOGLE" }] } });
    case "/api/download-links":
      return reply(200, { status: true, data: { windows: "https://dl.example/win.exe", mac: "https://dl.example/mac.dmg" } });
    default:
      return reply(404, { status: false, message: "Not found." });
  }
});

let home: typeof import("~/routes/_index");
let layout: typeof import("~/routes/_app");
let sessions: typeof import("~/utils/session.server");
// One load context per request, as server.ts makes it: the API calls made for a request share one deadline.
const context = () => ({ clientIp: "203.0.113.7", cspNonce: "" });

beforeAll(async () => {
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  setPortalConfigForTests({
    API_URL: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`,
    SESSION_SECRET: "unit-test-session-secret-0123456789abcdef",
    SANDBOX: "true",
    API_TIMEOUT_MS: "2000",
  });
  home = await import("~/routes/_index");
  layout = await import("~/routes/_app");
  sessions = await import("~/utils/session.server");
});

afterAll(() => {
  standIn.close();
});

async function signedInRequest(path: string, token = "good-token") {
  const probe = new Request(`http://portal.test${path}`);
  const cookie = (await sessions.commitTokenSession(probe, token)).split(";")[0]!;
  return new Request(`http://portal.test${path}`, { headers: { Cookie: cookie, "User-Agent": "Browser/1.0" } });
}

describe("account home loader", () => {
  it("reads the whole home with one call when the API has /api/account/home", async () => {
    seen.length = 0;
    hasAccountHome = true;
    try {
      const data = (await home.loader({ request: await signedInRequest("/"), context: context(), params: {} })) as Awaited<ReturnType<typeof home.loader>>;
      expect(seen.map((s) => s.path)).toEqual(["/api/account/home"]);
      expect(seen[0]?.authorization).toBe("Bearer good-token");
      expect(data.email).toBe("someone@example.com");
      expect(data.hasPassword).toBe(false);
      expect(data.subscription).toEqual({ plan: "Premium", daysLeft: 10, activatedOn: "01 November, 2026", expiresOn: "01 December, 2026" });
      expect(data.accounts).toEqual([
        { type: "GOOGLE", name: "Google", linkId: null },
        { type: "APPLE", name: "Apple", linkId: 4 },
      ]);
      expect(data.downloads.find((d) => d.name === "macOS")?.href).toBe("https://dl.example/mac.dmg");
      expect(data.notices).toEqual([]);
    } finally {
      hasAccountHome = false;
    }
  });

  it("with an API without the aggregate, calls the API with the token, the browser's address and user agent, and builds the dashboard", async () => {
    seen.length = 0;
    const data = (await home.loader({ request: await signedInRequest("/"), context: context(), params: {} })) as Awaited<ReturnType<typeof home.loader>>;
    expect(data.subscription).toEqual({ plan: "Premium", daysLeft: 10, activatedOn: "01 November, 2026", expiresOn: "01 December, 2026" });
    expect(data.accounts).toEqual([
      { type: "GOOGLE", name: "Google", linkId: 3 },
      { type: "APPLE", name: "Apple", linkId: null },
    ]);
    expect(data.downloads.map((d) => d.href)).toContain("https://dl.example/win.exe");
    expect(data.notices).toEqual([]);
    expect(seen.map((s) => s.path).sort()).toEqual([
      "/api/account/home",
      "/api/account/link-list",
      "/api/download-links",
      "/api/me",
      "/api/subscription/active",
    ]);
    for (const request of seen) {
      expect(request.authorization).toBe("Bearer good-token");
      expect(request.forwardedFor).toBe("203.0.113.7");
      expect(request.userAgent).toBe("Browser/1.0");
    }
  });

  it("shows each failing call's spec toast while the rest renders", async () => {
    failing.add("/api/subscription/active");
    failing.add("/api/download-links");
    try {
      const data = (await home.loader({ request: await signedInRequest("/"), context: context(), params: {} })) as Awaited<ReturnType<typeof home.loader>>;
      expect(data.notices.map((n) => english(n.message))).toEqual(["Failed to fetch active subscriptions", "Failed to fetch links"]);
      expect(data.subscription).toEqual({ plan: "Free", endedOn: null });
      expect(data.accounts[0]?.linkId).toBe(3);
      expect(data.downloads.find((d) => d.name === "Windows")?.href).toBeNull();
      expect(data.downloads.find((d) => d.name === "iOS")?.href).toMatch(/^https:\/\/apps\.apple\.com\//);
    } finally {
      failing.clear();
    }
    failing.add("/api/account/link-list");
    try {
      const data = (await home.loader({ request: await signedInRequest("/"), context: context(), params: {} })) as Awaited<ReturnType<typeof home.loader>>;
      expect(data.notices.map((n) => english(n.message))).toEqual(["Failed to fetch account link list"]);
    } finally {
      failing.clear();
    }
  });

  it("a token the API refuses signs the user out, back to login with oldurl", async () => {
    const thrown = await home.loader({ request: await signedInRequest("/billing?x=1", "revoked"), context: context(), params: {} }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    const response = thrown as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login?oldurl=%2Fbilling%3Fx%3D1");
    const cookies = response.headers.getSetCookie();
    expect(cookies.some((c) => c.startsWith("__session=;") || /__session=.*Max-Age=0|Expires=Thu, 01 Jan 1970/.test(c))).toBe(true);
    expect(cookies.some((c) => c.startsWith("toast-session="))).toBe(true);
  });

  it("an anonymous visitor is sent to sign in", async () => {
    const thrown = await layout.loader({ request: new Request("http://portal.test/connected-devices"), context: context(), params: {} }).catch((e: unknown) => e);
    expect((thrown as Response).headers.get("Location")).toBe("/login?oldurl=%2Fconnected-devices");
  });

  it("an unreachable API gives a 503 'service unavailable', not a crash", async () => {
    const request = await signedInRequest("/");
    await new Promise<void>((resolve) => standIn.close(() => resolve()));
    standIn.closeAllConnections();
    const thrown = await layout.loader({ request, context: context(), params: {} }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(503);
    expect(english(await (thrown as Response).text())).toMatch(/can't reach our servers/);
  });
});
