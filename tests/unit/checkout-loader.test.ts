import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setPortalConfigForTests } from "./portal-config";

// The signed-in checkout's loader against a stand-in for the product API over real HTTP (issue 31): one
// call to /api/account/checkout, or, from an API without it or refusing it, the five calls it stands for.
// The country is in that one call (issue 35): the one chosen, else the API's saved one, else the browser's.
const seen: string[] = [];
let aggregate: "answers" | "missing" | "fails" | "hangs up" = "answers";
let subscription: Record<string, unknown> | null = null;
const failing = new Set<string>();

const plan = { id: 6, title: "1 Year", price: 59.99, duration_months: 12 };
const card = { id: 3, payment_method_id: "pm_1", card_brand: "visa", card_number: "**** **** **** 4242", card_exp: "12/30", is_default: true };
const gateway = { mode: "sandbox", publishable_key: "pk_sandbox", crypto: true, paypal: true, paypal_client_id: null };
const user = { id: 1, email: "buyer@example.com", name: null, has_password: true };
const TERM_ENDS_ON = "2027-11-21T12:00:00.000Z";
let savedCountry: string | null = null;

const standIn = http.createServer(async (req, res) => {
  const path = req.url ?? "";
  seen.push(path);
  let body = "";
  for await (const chunk of req) body += chunk;
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const route = path.split("?")[0]!;
  if (failing.has(route)) return reply(500, { status: false, errors: { code: "internal_error", message: "Something went wrong." } });
  switch (route) {
    case "/api/account/checkout":
      if (aggregate === "hangs up") return void req.socket.destroy();
      if (aggregate === "missing") return reply(404, { status: false, errors: { code: "not_found", message: "Not found." } });
      if (aggregate === "fails") return reply(500, { status: false, errors: { code: "internal_error", message: "Something went wrong." } });
      if (!/plan_id=6(&|$)/.test(path)) return reply(404, { status: false, errors: { code: "not_found", message: "This plan does not exist." } });
      {
        // The quote says the country it is taxed for: the one asked, else the saved one, else the default.
        const query = new URL(path, "http://api.test").searchParams;
        const country = query.get("country") ?? savedCountry ?? query.get("default_country");
        const quotes = [{ method: "card", country, amount_cents: 7188, tax: null, renewal: null }];
        return reply(200, { status: true, data: { plan_data: plan, term_ends_on: TERM_ENDS_ON, quotes, gateway, user, saved_cards: [card], subscription } });
      }
    case "/api/plans/detail":
      if (JSON.parse(body).planId !== 6) return reply(404, { status: false, errors: { code: "not_found", message: "This plan does not exist." } });
      return reply(200, { status: true, data: { plan_data: plan, term_ends_on: TERM_ENDS_ON, quotes: [{ method: "card", country: null, amount_cents: 7188, tax: null, renewal: null }] } });
    case "/api/payments/config":
      return reply(200, { status: true, data: gateway });
    case "/api/me":
      return reply(200, { status: true, data: user });
    case "/api/payments/payment-methods":
      return reply(200, { status: true, data: [card] });
    case "/api/subscription/active":
      return reply(200, { status: true, data: { subscription, now: "2026-11-21T12:00:00.000Z", pending_change: null } });
    case "/api/subscription/change-preview":
      return reply(409, { status: false, errors: { code: "plan_already_current", message: "This is already your plan." } });
    default:
      return reply(404, { status: false, errors: { code: "not_found", message: "Not found." } });
  }
});

let checkout: typeof import("~/routes/subscription.payment.$planId/route");
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
  checkout = await import("~/routes/subscription.payment.$planId/route");
  sessions = await import("~/utils/session.server");
});

afterAll(() => {
  standIn.close();
});

beforeEach(() => {
  seen.length = 0;
  aggregate = "answers";
  subscription = null;
  savedCountry = null;
  failing.clear();
});

async function load(planId = "6", acceptLanguage = "en-US,en;q=0.9") {
  const path = `/subscription/payment/${planId}`;
  const cookie = (await sessions.commitTokenSession(new Request(`http://portal.test${path}`), "good-token")).split(";")[0]!;
  const request = new Request(`http://portal.test${path}`, { headers: { Cookie: cookie, "Accept-Language": acceptLanguage } });
  return checkout.loader({ request, context: context(), params: { planId } }) as Promise<Awaited<ReturnType<typeof checkout.loader>>>;
}

/** What the page shows, without the key made afresh for each load. */
const shown = ({ idempotencyKey: _key, ...state }: Awaited<ReturnType<typeof load>>) => state;

describe("signed-in checkout loader", () => {
  it("reads the checkout with one call when the API has /api/account/checkout", async () => {
    const data = await load();
    expect(seen).toEqual(["/api/account/checkout?plan_id=6&default_country=US"]);
    expect(data).toMatchObject({ plan: { id: 6, title: "1 Year" }, accountEmail: "buyer@example.com", visitor: null, savedCards: [card], cardsFailed: false, gateway, planChange: null });
    expect(data.country).toEqual({ code: "US" });
    // The page gets the plan's fields it shows, not every field of the API's plan (each is encoded into the page).
    expect(data.plan).not.toHaveProperty("price");
    expect(data.plan).not.toHaveProperty("duration_months");
  });

  it("taxes for the saved billing country, else the browser's, in the same one call (issue 35)", async () => {
    savedCountry = "FR";
    expect((await load("6", "de-DE")).country?.code).toBe("FR");
    expect(seen).toEqual(["/api/account/checkout?plan_id=6&default_country=DE"]);
    savedCountry = null;
    seen.length = 0;
    const german = await load("6", "de-DE,de;q=0.9");
    expect(german.country?.code).toBe("DE");
    expect(german.quotes[0]?.country).toBe("DE");
    expect(seen).toEqual(["/api/account/checkout?plan_id=6&default_country=DE"]);
  });

  it("shows the same page from an API without it, asking the five questions it answers", async () => {
    const one = shown(await load());
    aggregate = "missing";
    seen.length = 0;
    // The same page; only the quotes' own note of the country differs (the aggregate was asked for the US,
    // the plan's detail for no country: outside the EU both are untaxed, so no second call is made).
    expect(shown(await load())).toEqual({ ...one, quotes: one.quotes.map((quote) => ({ ...quote, country: null })) });
    expect(seen.sort()).toEqual([
      "/api/account/checkout?plan_id=6&default_country=US",
      "/api/me",
      "/api/payments/config",
      "/api/payments/payment-methods",
      "/api/plans/detail",
      "/api/subscription/active",
    ]);
  });

  it("uses the aggregate's subscription for the plan change, asking only for the preview", async () => {
    subscription = { id: 9, title: "1 Year", plan_id: 6, billing_type: "recurring", subscription_by: "stripe" };
    const data = await load();
    expect(seen).toEqual(["/api/account/checkout?plan_id=6&default_country=US", "/api/subscription/change-preview?plan_id=6"]);
    expect(data.planChange).toMatchObject({ kind: "done", message: "This is already your current plan.", pendingTitle: null });
  });

  it("keeps each part's failure when the aggregate fails: the cards' notice while the rest renders", async () => {
    aggregate = "fails";
    failing.add("/api/payments/payment-methods");
    const data = await load();
    expect(data).toMatchObject({ plan: { id: 6, title: "1 Year" }, accountEmail: "buyer@example.com", savedCards: [], cardsFailed: true });
  });

  it("an unknown plan is the 404 page", async () => {
    const thrown = await load("7").catch((error: unknown) => error);
    expect((thrown as Response).status).toBe(404);
  });

  it("an API that does not answer is the 503 page at once, without the five calls", async () => {
    aggregate = "hangs up";
    const thrown = await load().catch((error: unknown) => error);
    expect((thrown as Response).status).toBe(503);
    // The client sends a GET again once when its kept-alive connection was closed under it (api-transport.server.ts).
    expect(new Set(seen)).toEqual(new Set(["/api/account/checkout?plan_id=6&default_country=US"]));
  });
});
