import { describe, expect, it } from "vitest";
import { getSubscription } from "../../api/payments/paypal/client";
import { databases, type TestApi, useApi } from "./harness";

// A PayPal subscription changes plan through PayPal's revise, with the customer's approval (issue 32,
// docs/decisions/051), against the PayPal stand-in (its approval pages pressed as a browser would).

async function buyer(t: TestApi, email: string) {
  const userId = await t.createUser({ email, password: "paypal-password" });
  const token = await t.login(email, "paypal-password");
  return { userId, token, email };
}

let keys = 0;
const newKey = () => `paypal-change-key-${Date.now()}-${keys++}`;

/** Presses Approve or Cancel on the stand-in's page; answers where PayPal sends the browser. */
async function atPayPal(t: TestApi, approveUrl: string, action: "approve" | "cancel"): Promise<URL> {
  const url = new URL(approveUrl);
  const page = await t.get(`${url.pathname}${url.search}`, { notTheApi: true });
  expect(page.status, page.text).toBe(200);
  expect(page.text).toContain(">Approve<");
  const res = await fetch(`${t.baseUrl}${url.pathname}${url.search}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action, funding: "balance" }),
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location")!);
}

async function subscribe(t: TestApi, token: string, planId: number) {
  const started = await t.post("/api/payments/paypal/checkout", {
    token,
    json: { planId, return_path: `/subscription/payment/${planId}`, idempotency_key: newKey() },
  });
  expect(started.status, started.text).toBe(200);
  const back = await atPayPal(t, started.body.data.approve_url, "approve");
  const done = await t.post("/api/payments/paypal/complete", { token, json: { subscription_id: back.searchParams.get("subscription_id") } });
  expect(done.status, done.text).toBe(200);
  expect(done.body.data.status).toBe("paid");
}

async function row(t: TestApi, userId: number) {
  return t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
}

const long = (iso: string) => {
  const d = new Date(iso);
  return `${String(d.getUTCDate()).padStart(2, "0")} ${d.toLocaleString("en-US", { month: "long", timeZone: "UTC" })}, ${d.getUTCFullYear()}`;
};

describe.each(databases())("PayPal plan changes ($name)", (kind) => {
  const t = useApi(kind);

  it("3 Months -> 1 Year: revised at PayPal once approved, the three figures agree, and the renewal buys the 1 Year card", async () => {
    const who = await buyer(t, "paypal-change@example.com");
    await subscribe(t, who.token, 2);
    const before = await row(t, who.userId);

    const preview = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({ kind: "at_renewal", paid_with: "paypal", amount_due: 0, current_plan: { id: 2 }, plan: { id: 5 } });
    const summary = preview.body.data.summary;
    expect(summary).toEqual({
      charged_now: 0,
      charged_now_cents: 0,
      charged_now_net_cents: 0,
      charged_now_tax: null,
      new_end_date: before.sub_exp_date,
      next_renewal: { amount: 71.88, amount_cents: 7188, net_cents: 7188, tax_cents: 0, tax: null, date: before.sub_exp_date },
    });

    // Cancelled at PayPal: nothing changes.
    const firstKey = newKey();
    const start = (key: string) =>
      t.post("/api/subscription/change/paypal", { token: who.token, json: { plan_id: 5, return_path: "/subscription/payment/5", idempotency_key: key } });
    const cancelledStart = await start(firstKey);
    expect(cancelledStart.status, cancelledStart.text).toBe(200);
    const cancelled = await atPayPal(t, cancelledStart.body.data.approve_url, "cancel");
    expect(cancelled.pathname).toBe("/subscription/payment/5");
    expect(cancelled.searchParams.get("plan_change")).toBe(firstKey);
    expect(cancelled.searchParams.get("paypal")).toBe("cancel");
    const refused = await t.post("/api/subscription/change/paypal/confirm", { token: who.token, json: { plan_id: 5, idempotency_key: firstKey } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.message).toBe("The plan change was not approved at PayPal. Your plan stays as it was.");
    expect(await row(t, who.userId)).toMatchObject({ plan_id: 2, pending_plan_id: null });

    // Approved: the change waits for the renewal, stated with the preview's figures, in the answer, again, and by email.
    const key = newKey();
    const started = await start(key);
    expect(started.status, started.text).toBe(200);
    const back = await atPayPal(t, started.body.data.approve_url, "approve");
    expect(back.searchParams.get("plan_change")).toBe(key);
    expect(back.searchParams.get("paypal")).toBeNull();
    const confirmed = await t.post("/api/subscription/change/paypal/confirm", { token: who.token, json: { plan_id: 5, idempotency_key: key } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.message).toMatch(/^Your plan changes to 1 Year on \d{2} \w+, \d{4}\.$/);
    expect(confirmed.body.data).toMatchObject({ kind: "at_renewal", amount_paid: 0, summary, pending: { plan: { id: 5 } } });
    const again = await t.get(`/api/subscription/change/result?key=${encodeURIComponent(key)}`, { token: who.token });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.summary).toEqual(summary);
    expect(await row(t, who.userId)).toMatchObject({ plan_id: 2, pending_plan_id: 5, pending_change_at: before.sub_exp_date });
    const paypalSub = await getSubscription(t.api.paypal!.client, before.paypal_sub_id!);
    const billingPlan = await t.db.selectFrom("paypal_plans").select("paypal_plan_id").where("plan_id", "=", 5).executeTakeFirstOrThrow();
    expect(paypalSub.planId).toBe(billingPlan.paypal_plan_id);
    const mails = (await t.mailbox(who.email)).filter((m) => m.subject === "Your VPN plan change");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("Charged now: $0.00");
    expect(mails[0]!.text).toContain(`New end date: ${long(before.sub_exp_date)}`);
    expect(mails[0]!.text).toContain(`Next renewal: $71.88 on ${long(before.sub_exp_date)}`);
    // Approved at PayPal, it is not cancelled here (that would be another revise to approve).
    const keep = await t.post("/api/subscription/change/cancel", { token: who.token });
    expect(keep.status, keep.text).toBe(409);
    expect(keep.body.message).toBe("A plan change approved at PayPal cannot be cancelled here: it applies at your next renewal.");
    // Confirming twice sends nothing more.
    expect((await t.post("/api/subscription/change/paypal/confirm", { token: who.token, json: { plan_id: 5, idempotency_key: key } })).status).toBe(200);
    expect((await t.mailbox(who.email)).filter((m) => m.subject === "Your VPN plan change")).toHaveLength(1);

    // The renewal: PayPal bills the 1 Year plan, which buys its card (12 months and 2 free).
    const days = Math.ceil((Date.parse(before.sub_exp_date) - t.clock.now().getTime()) / 86_400_000) + 1;
    expect((await t.post("/dev/clock", { form: { days: String(days) } })).status).toBe(200);
    const after = await row(t, who.userId);
    const end = new Date(before.sub_exp_date);
    const fourteen = new Date(Date.UTC(end.getUTCFullYear() + 1, end.getUTCMonth() + 2, end.getUTCDate())).toISOString().slice(0, 10);
    expect(after).toMatchObject({ plan_id: 5, title: "1 Year", amount_cents: 7188, pending_plan_id: null, pending_change_at: null });
    expect(after.sub_exp_date.slice(0, 10)).toBe(fourteen);
    const paid = await t.db.selectFrom("transactions").select(["amount_cents", "plan_id"]).where("user_id", "=", who.userId).orderBy("id").execute();
    expect(paid).toEqual([
      { amount_cents: 2697, plan_id: 2 },
      { amount_cents: 7188, plan_id: 5 },
    ]);
  });

  it("refuses a change to the 2-year plan, which PayPal bills as one payment, with a clear message", async () => {
    const who = await buyer(t, "paypal-two-years@example.com");
    await subscribe(t, who.token, 1);
    const preview = await t.get("/api/subscription/change-preview?plan_id=6", { token: who.token });
    expect(preview.status, preview.text).toBe(409);
    expect(preview.body.message).toBe(
      "PayPal bills the 2-year plan as one payment, not as a subscription: a PayPal subscription cannot be changed to it. Choose it when your current plan ends.",
    );
    const start = await t.post("/api/subscription/change/paypal", {
      token: who.token,
      json: { plan_id: 6, return_path: "/subscription/payment/6", idempotency_key: newKey() },
    });
    expect(start.status, start.text).toBe(409);
    expect((await row(t, who.userId)).plan_id).toBe(1);
  });
});
