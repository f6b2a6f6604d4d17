import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { SANDBOX_WEBHOOK_SECRET } from "../../api/sandboxes/stripe";
import { LIVE_ESSENTIALS, databases, useApi } from "./harness";

// Sandbox mode is a deliberate setting (docs/decisions/019, issue 17): outside it no stand-in exists,
// whatever credential is missing. The API is started here as a real deploy configures it (mail and
// Stripe keys; nothing is called at start), and as the tests and `npm start` run it (SANDBOX=true).

const DEMO = { email: "demo@example.com", password: "demo-password" };
const SANDBOX_BITPAY_SECRET = "bitpay-sandbox-notification-secret";

function sandboxSignedEvent() {
  const payload = JSON.stringify({
    id: "evt_sandbox_signed",
    object: "event",
    type: "payment_intent.succeeded",
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: "pi_forged", object: "payment_intent", amount: 100, currency: "usd", metadata: { user: "1", plan: "7" } } },
  });
  return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: SANDBOX_WEBHOOK_SECRET }) };
}

describe.each(databases())("outside sandbox mode ($name)", (kind) => {
  // SANDBOX unset, as in a deploy: mail and cards live, crypto, Google and Apple without credentials.
  const t = useApi(kind, { env: { ...LIVE_ESSENTIALS, SANDBOX: "" } });

  it("serves none of the sandboxes' pages", async () => {
    for (const path of [
      "/dev/mailbox",
      "/dev/mailbox.json",
      "/dev/clock",
      "/dev/oidc/google/.well-known/openid-configuration",
      "/dev/oidc/apple/.well-known/openid-configuration",
    ]) {
      const res = await t.get(path, { notTheApi: true });
      expect(res.status, path).toBe(404);
    }
    expect((await t.post("/dev/clock", { form: { days: "30" }, notTheApi: true })).status).toBe(404);
  });

  it("has no stand-in sign-in: Google and Apple are off, their ID tokens refused with 404", async () => {
    for (const [method, label] of [["GOOGLE", "Google"], ["APPLE", "Apple"]] as const) {
      const res = await t.post("/api/user/thirdparty-login", {
        json: { auth_method: method, email: DEMO.email, firebase_id_token: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln" },
      });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(`Sign-in with ${label} is not available.`);
    }
  });

  it("seeds no demo account and no sandbox coupon", async () => {
    expect((await t.post("/api/user/login", { json: DEMO })).status).toBe(401);
    expect(await t.db.selectFrom("users").select("id").where("email", "=", DEMO.email).executeTakeFirst()).toBeUndefined();
    expect(await t.db.selectFrom("coupons").select("code").execute()).toEqual([]);
  });

  it("has crypto off: no crypto routes, and the checkout is told", async () => {
    const config = await t.get("/api/payments/config");
    expect(config.body.data).toEqual({
      mode: "live",
      publishable_key: LIVE_ESSENTIALS.STRIPE_PUBLISHABLE_KEY,
      crypto: false,
      paypal: false,
      paypal_client_id: null,
      device: { os: null, app: null },
    });
    // The device asking, as the API's one User-Agent parser reads it (the wallets' Android notice, the receipt's first app).
    const android = await t.get("/api/payments/config", {
      headers: { "User-Agent": "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36" },
    });
    expect(android.body.data.device).toEqual({ os: "Android", app: "Android" });
    const invoice = await t.post("/api/payments/crypto/invoice", {
      json: { planId: 7, amount: "1.00", currency: "USD", email: "someone@example.com" },
    });
    expect(invoice.status).toBe(404);
    const notify = await t.post(`/api/payments/bitpay/notify?secret=${SANDBOX_BITPAY_SECRET}`, { json: { data: { id: "x" } } });
    expect(notify.status).toBe(404);
  });

  it("refuses webhooks signed with the sandbox's published secret", async () => {
    const { payload, signature } = sandboxSignedEvent();
    const res = await t.post("/api/payments/stripe/webhook", {
      raw: payload,
      headers: { "content-type": "application/json", "stripe-signature": signature },
    });
    expect(res.status).toBe(400);
    expect(await t.db.selectFrom("webhook_events").select("id").execute()).toEqual([]);
  });
});

describe.each(databases())("in sandbox mode ($name)", (kind) => {
  const t = useApi(kind, { env: { SANDBOX: "true" } });

  it("serves the stand-ins, the demo account and the coupon", async () => {
    expect(t.config.integrations).toEqual({ mail: "sandbox", cards: "sandbox", crypto: "sandbox", paypal: "sandbox", google: "sandbox", apple: "sandbox", vpn: "sandbox" });
    expect((await t.get("/dev/mailbox.json", { notTheApi: true })).status).toBe(200);
    expect((await t.get("/dev/clock", { notTheApi: true })).status).toBe(200);
    expect((await t.get("/dev/oidc/google/.well-known/openid-configuration", { notTheApi: true })).status).toBe(200);
    expect((await t.post("/api/user/login", { json: DEMO })).status).toBe(200);
    expect((await t.get("/api/payments/config")).body.data).toMatchObject({ mode: "sandbox", crypto: true, paypal: true, paypal_client_id: null });
  });
});
