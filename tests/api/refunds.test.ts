import { describe, expect, it } from "vitest";
import { REFUND_MESSAGES, requireAdmin } from "../../api/billing/refunds";
import { statusOf } from "../../api/http/error-status";
import type { DomainError } from "../../api/platform/errors";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, GOOD_OTHER, ONE_MONTH_BY_CRYPTO, buyByCrypto, customer, newKey, paymentMethod } from "./payment-support";

// The 30-day money-back guarantee (issue 12, decision 016): the rules (first paid plan only, 30 days
// by the product's clock, once per account), the card refund through the Stripe sandbox (idempotent
// under parallel posts), crypto refund requests and the staff list behind the admin token.

const ADMIN_TOKEN = "admin-token-for-tests-0123456789abcdef";

async function buyByCard(t: TestApi, who: { token: string; email: string }, planId: number, card = GOOD) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: await paymentMethod(t, card), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.subscription as { id: number; stripe_sub_id: string | null; sub_exp_date: string };
}

type Row = { id: number; status: string; refundable: boolean; refund_status: string | null; product: { title: string } };

async function history(t: TestApi, token: string): Promise<Row[]> {
  const res = await t.post("/api/billing/transactions", { token, json: { per_page: 50 } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.transactions;
}

const refund = (t: TestApi, token: string, id: number, json: Record<string, unknown> = {}) =>
  t.post(`/api/billing/transactions/${id}/refund`, { token, json });

async function activeSubscription(t: TestApi, token: string) {
  const res = await t.post("/api/subscription/active", { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data.subscription as { id: number } | null;
}

async function sandboxRefunds(t: TestApi) {
  const rows = await t.db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", "refund").execute();
  return rows.map((r) => JSON.parse(r.data) as { id: string; amount: number; payment_intent: string; metadata: Record<string, string> });
}

describe("refund units", () => {
  it("the admin token: 404 when not configured, 401 unless it matches", () => {
    const status = (configured: string | undefined, header: string | undefined) => {
      try {
        requireAdmin(configured, header);
        return 200;
      } catch (error) {
        return statusOf((error as DomainError).code);
      }
    };
    expect(status(undefined, `Bearer ${ADMIN_TOKEN}`)).toBe(404);
    expect(status(ADMIN_TOKEN, undefined)).toBe(401);
    expect(status(ADMIN_TOKEN, "Bearer wrong")).toBe(401);
    expect(status(ADMIN_TOKEN, ADMIN_TOKEN)).toBe(401);
    expect(status(ADMIN_TOKEN, `Bearer ${ADMIN_TOKEN}`)).toBe(200);
  });
});

describe.each(databases({ postgres: "concurrent refund posts: one refund" }))("refunds ($name)", (kind) => {
  const t = useApi(kind, { env: { ADMIN_API_TOKEN: ADMIN_TOKEN } });

  it("refunds the first card payment in full: 'refunded', the subscription ends now, Free, an email; then never again", async () => {
    const who = await customer(t, "refund-card@example.com");
    const sub = await buyByCard(t, who, 1);
    const [paid] = await history(t, who.token);
    expect(paid).toMatchObject({ status: "paid", refundable: true, refund_status: null });

    const res = await refund(t, who.token, paid!.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ message: REFUND_MESSAGES.refunded, data: { status: "refunded" } });

    const [after] = await history(t, who.token);
    expect(after).toMatchObject({ id: paid!.id, status: "refunded", refundable: false, refund_status: "refunded" });
    expect(await activeSubscription(t, who.token)).toBeNull();
    const row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subs_status: "subscription_cancelled", cancel_at_period_end: 1 });
    expect(Date.parse(row.sub_exp_date)).toBeLessThanOrEqual(t.clock.now().getTime());

    // At the gateway: one full refund of the invoice's payment, and the subscription canceled.
    const refunds = (await sandboxRefunds(t)).filter((r) => r.metadata.transaction_id === String(paid!.id));
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.amount).toBe(999);
    expect((await t.api.payments.gateway.stripe.subscriptions.retrieve(sub.stripe_sub_id!)).status).toBe("canceled");

    const mail = (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN payment was refunded");
    expect(mail?.text).toContain("$9.99");

    // Posting again answers the same outcome (idempotent), without a second refund or email.
    const again = await refund(t, who.token, paid!.id);
    expect(again.status, again.text).toBe(200);
    expect((await sandboxRefunds(t)).filter((r) => r.metadata.transaction_id === String(paid!.id))).toHaveLength(1);
    expect((await t.mailbox(who.email)).filter((m) => m.subject === "Your VPN payment was refunded")).toHaveLength(1);

    // Once per account: a new plan bought afterwards is not refundable, and a forged post is refused.
    await buyByCard(t, who, 1);
    const rows = await history(t, who.token);
    expect(rows.map((r) => r.refundable)).toEqual([false, false]);
    const forged = await refund(t, who.token, rows[0]!.id);
    expect(forged.status).toBe(409);
    expect(forged.body.message).toBe(REFUND_MESSAGES.alreadyUsed);
  });

  it("only the first paid plan: a second payment is refused, even within 30 days", async () => {
    const who = await customer(t, "refund-first@example.com");
    await buyByCard(t, who, 1);
    // The one-time plan (another recurring one would be a change of plan, not a second payment of this kind).
    await buyByCard(t, who, 7);
    const rows = await history(t, who.token);
    const [second, first] = rows;
    expect(first).toMatchObject({ product: { title: "1 Month" }, refundable: true });
    expect(second).toMatchObject({ product: { title: "5 Years" }, refundable: false });
    const res = await refund(t, who.token, second!.id);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(REFUND_MESSAGES.notFirst);
    // A failed payment is no "first paid plan", and someone else's transaction is not found.
    const other = await customer(t, "refund-first-other@example.com");
    expect((await refund(t, other.token, first!.id)).status).toBe(404);
    expect((await refund(t, who.token, 99_999_999)).status).toBe(404);
    expect((await refund(t, who.token, "abc" as unknown as number)).status).toBe(422);
    expect((await t.post(`/api/billing/transactions/${first!.id}/refund`)).status).toBe(401);
  });

  it("30 days by the product's clock: near the end of day 30 still refundable, day 31 refused", async () => {
    const early = await customer(t, "refund-day30@example.com");
    const late = await customer(t, "refund-day31@example.com");
    await buyByCard(t, early, 1);
    await buyByCard(t, late, 1);
    // The clock follows real time from its offset: an hour of margin keeps this inside day 30.
    t.clock.advanceSeconds(30 * 86_400 - 3600);
    const [onDay30] = await history(t, early.token);
    expect(onDay30!.refundable).toBe(true);
    t.clock.advanceSeconds(2 * 3600);
    const [onDay31] = await history(t, late.token);
    expect(onDay31!.refundable).toBe(false);
    const res = await refund(t, late.token, onDay31!.id);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(REFUND_MESSAGES.tooLate);
    expect(await sandboxRefunds(t).then((r) => r.filter((x) => x.metadata.transaction_id === String(onDay31!.id)))).toHaveLength(0);
  });

  it("10 concurrent posts: exactly one gateway refund, one state change, one email", async () => {
    const who = await customer(t, "refund-race@example.com");
    // Another card than the first test's: the guarantee is once per card too.
    await buyByCard(t, who, 1, GOOD_OTHER);
    const [paid] = await history(t, who.token);
    const answers = await Promise.all(Array.from({ length: 10 }, () => refund(t, who.token, paid!.id)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.data.status))).toEqual(new Set(["refunded"]));
    expect((await sandboxRefunds(t)).filter((r) => r.metadata.transaction_id === String(paid!.id))).toHaveLength(1);
    const rows = await t.db.selectFrom("refunds").selectAll().where("user_id", "=", who.userId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "refunded", kind: "card", amount_cents: 999 });
    expect((await t.mailbox(who.email)).filter((m) => m.subject === "Your VPN payment was refunded")).toHaveLength(1);
  });

  it("crypto: asks for an address, records 'requested', ends the plan, lists it for staff behind the admin token", async () => {
    const who = await customer(t, "refund-crypto@example.com");
    await buyByCrypto(t, who, ONE_MONTH_BY_CRYPTO);
    const [paid] = await history(t, who.token);
    expect(paid).toMatchObject({ status: "paid", refundable: true });

    const missing = await refund(t, who.token, paid!.id);
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.refund_address).toEqual([REFUND_MESSAGES.addressRequired]);
    const bad = await refund(t, who.token, paid!.id, { refund_address: "<script>" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.fields.refund_address).toEqual([REFUND_MESSAGES.addressInvalid]);

    const address = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    const res = await refund(t, who.token, paid!.id, { refund_address: address });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ message: REFUND_MESSAGES.requested, data: { status: "requested" } });
    const [after] = await history(t, who.token);
    expect(after).toMatchObject({ status: "paid", refundable: false, refund_status: "requested" });
    expect(await activeSubscription(t, who.token)).toBeNull();
    expect((await t.mailbox(who.email)).some((m) => m.subject === "We received your VPN refund request" && m.text.includes(address))).toBe(true);

    const list = await t.get("/api/admin/refund-requests", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.refund_requests).toContainEqual(
      expect.objectContaining({ transaction_id: paid!.id, user_email: who.email, refund_address: address, amount: 9.99, plan: "1 Month" }),
    );
    // Card refunds are not staff work.
    expect(list.body.data.refund_requests.every((r: { user_email: string }) => r.user_email !== "refund-card@example.com")).toBe(true);
    expect((await t.get("/api/admin/refund-requests")).status).toBe(401);
    expect((await t.get("/api/admin/refund-requests", { headers: { authorization: `Bearer ${who.token}` } })).status).toBe(401);
  });
});
