import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setPortalConfigForTests } from "./portal-config";

// The portal's side of PayPal (issue 23) against a stand-in for the product API over HTTP: the
// resource route PayPal's live buttons call (/payments/paypal), and the checkout's reading of PayPal's
// return and cancel URLs. Before PayPal, the checkout's country becomes the account's billing country
// (issue 35): here an account with none saved and an English (US) browser.
type Seen = { path: string; body: Record<string, unknown> };
const seen: Seen[] = [];
let refuse: { status: number; message: string } | null = null;
const saved: { country: string }[] = [];

const standIn = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (chunk) => {
    raw += chunk;
  });
  req.on("end", () => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== "Bearer good-token") return reply(401, { status: false, message: "Unauthenticated." });
    if (req.url === "/api/account/billing-details") {
      return reply(200, { status: true, data: { billing_details: null, countries: [{ code: "US", name: "United States", eu: false }] } });
    }
    if (req.url === "/api/account/billing-country") {
      saved.push(JSON.parse(raw) as { country: string });
      return reply(200, { status: true, message: "Country saved.", data: {} });
    }
    seen.push({ path: req.url ?? "", body: raw ? JSON.parse(raw) : {} });
    if (req.url === "/api/payments/paypal/checkout") {
      if (refuse) return reply(refuse.status, { status: false, errors: { code: "conflict", message: refuse.message } });
      return reply(200, { status: true, message: "", data: { approve_url: "https://paypal.test/approve", paypal_id: "5O190127TN364715T", kind: "order" } });
    }
    return reply(404, { status: false, message: "Not found." });
  });
});

let route: typeof import("~/routes/payments.paypal");
let checkout: typeof import("~/routes/subscription.payment.$planId/checkout.server");
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
  route = await import("~/routes/payments.paypal");
  checkout = await import("~/routes/subscription.payment.$planId/checkout.server");
  sessions = await import("~/utils/session.server");
});

afterAll(() => {
  standIn.close();
});

async function post(body: string, signedIn = true) {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (signedIn) {
    const probe = new Request("http://portal.test/payments/paypal");
    headers.Cookie = (await sessions.commitTokenSession(probe, "good-token")).split(";")[0]!;
  }
  headers["Accept-Language"] = "en-US,en;q=0.9";
  const request = new Request("http://portal.test/payments/paypal", { method: "POST", headers, body });
  return (await route.action({ request, context: context(), params: {} })) as Response;
}

const GOOD = { planId: 7, return_path: "/subscription/payment/7", idempotency_key: "page-key-0123456789ab" };

describe("/payments/paypal (PayPal's buttons)", () => {
  it("opens the order through the API with the page's key (made PayPal's own) and answers its id", async () => {
    seen.length = 0;
    const response = await post(JSON.stringify(GOOD));
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(await response.json()).toEqual({ ok: true, id: "5O190127TN364715T", kind: "order" });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toMatchObject({ planId: 7, return_path: "/subscription/payment/7" });
    // The account had no billing country: the one the page showed (the browser's) was saved first.
    expect(saved.at(-1)).toEqual({ country: "US" });
    const key = seen[0]!.body.idempotency_key as string;
    expect(key).not.toBe(GOOD.idempotency_key);
    // The same page key is the same attempt (a double click opens one order).
    await post(JSON.stringify(GOOD));
    expect(seen[1]!.body.idempotency_key).toBe(key);
  });

  it("refuses without a session, a malformed body, another plan's path, and GET; passes on the API's refusal", async () => {
    expect((await post(JSON.stringify(GOOD), false)).status).toBe(401);
    expect((await post("not json")).status).toBe(400);
    expect((await post(JSON.stringify({ ...GOOD, return_path: "https://evil.example/" }))).status).toBe(422);
    expect((await post(JSON.stringify({ ...GOOD, return_path: "/subscription/payment/1" }))).status).toBe(422);
    expect((await post(JSON.stringify({ ...GOOD, idempotency_key: "short" }))).status).toBe(422);
    expect(route.loader().status).toBe(405);
    refuse = { status: 409, message: "You already have a subscription. Change your plan instead." };
    try {
      const refused = await post(JSON.stringify(GOOD));
      expect(refused.status).toBe(409);
      expect(await refused.json()).toEqual({ ok: false, message: "You already have a subscription. Change your plan instead." });
    } finally {
      refuse = null;
    }
  });
});

describe("PayPal's return to the checkout", () => {
  const at = (query: string) => checkout.paypalReturnOf(new URL(`http://portal.test/subscription/payment/1?${query}`));
  it("reads an order's return, a subscription's return and a cancel", () => {
    expect(at("paypal=return&token=5O190127TN364715T&PayerID=QYR5Z8XDVJNXQ")).toEqual({ outcome: "return", token: "5O190127TN364715T" });
    expect(at("paypal=return&subscription_id=I-BW452GLLEP1G&ba_token=BA-2M539689T3856352J&token=3C679366HH908993F")).toEqual({
      outcome: "return",
      subscription_id: "I-BW452GLLEP1G",
    });
    expect(at("paypal=cancel&token=5O190127TN364715T")).toEqual({ outcome: "cancel", token: "5O190127TN364715T" });
  });
  it("ignores what is not a PayPal return", () => {
    expect(at("paypal=return")).toBeNull();
    expect(at("paypal=other&token=5O190127TN364715T")).toBeNull();
    expect(at("paypal=return&token=%3Cscript%3E")).toBeNull();
    expect(at(`paypal=return&token=${"A".repeat(65)}`)).toBeNull();
    expect(at("token=5O190127TN364715T")).toBeNull();
  });
});

describe("the PayPal panel's terms", () => {
  // The API's quote (whether PayPal renews is decided there: api/payments/terms.ts); the panel only says it.
  const quote = (paid_months: number, amount_cents: number, renewal: { amount_cents: number; interval_months: number } | null) => ({
    plan_id: 1,
    method: "paypal" as const,
    coupon_code: null,
    price_cents: amount_cents,
    price: 0,
    discount_amount_cents: 0,
    discount_amount: 0,
    country: null,
    net_cents: amount_cents,
    net: 0,
    tax: null,
    amount_cents,
    amount: 0,
    paid_months,
    extra_months: 0,
    months: paid_months,
    first_term_ends_on: "2027-01-01T00:00:00.000Z",
    renewal: renewal ? { ...renewal, net_cents: renewal.amount_cents, tax_cents: 0, amount: 0, renews_on: "2027-01-01T00:00:00.000Z" } : null,
  });
  it("a PayPal subscription that renews, or one payment that does not, as the quote says", async () => {
    const { paypalTerms } = await import("~/routes/subscription.payment.$planId/summary");
    const { translatorFor } = await import("~/i18n/i18n.server");
    const { formattersFor } = await import("~/i18n/use-formatters");
    // The English the customer reads, in the page's words.
    const en = { t: translatorFor("en"), money: formattersFor("en").money };
    expect(paypalTerms(quote(1, 899, { amount_cents: 999, interval_months: 1 }), en)).toBe(
      "With PayPal you pay $8.99 now. PayPal then collects $9.99 every 1 month until you turn auto-renewal off, at least 24 hours before the end of the billing cycle.",
    );
    expect(paypalTerms(quote(24, 10776, null), en)).toBe("With PayPal you pay $107.76 once for 2 years. It does not renew: nothing more is charged.");
  });
});
