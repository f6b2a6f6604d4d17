import { describe, expect, it } from "vitest";
import { SANDBOX_PUBLISHABLE_KEY } from "../../api/sandboxes/stripe";
import { formatDate } from "../../api/platform/dates";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, ONE_MONTH_BY_CRYPTO, buyByCrypto, customer, newKey, paymentMethod } from "./payment-support";

// The notices people are owed (docs/decisions/029): receipts, renewal reminders, card-expiry warnings,
// auto-renewal confirmations and plan-ended emails, each once; and 'Next charge' in the answers.

const DAY = 86_400_000;

async function buyByCard(t: TestApi, who: { token: string; email: string }, planId: number, card?: string) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: card ?? (await paymentMethod(t, GOOD)), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.subscription as { id: number; stripe_sub_id: string; sub_exp_date: string };
}

async function mails(t: TestApi, to: string, subject: string) {
  return (await t.mailbox(to)).filter((m) => m.subject === subject);
}

/** Moves the business clock to `msBefore` before `iso` (forward only). */
function moveTo(t: TestApi, iso: string, msBefore: number) {
  const target = Date.parse(iso) - msBefore;
  t.clock.advanceSeconds((target - t.clock.now().getTime()) / 1000);
}

describe.each(databases())("notices emails ($name)", (kind) => {
  const t = useApi(kind);

  it("sends a receipt after a first purchase and after a renewal, once each", async () => {
    const who = await customer(t, "receipt@example.com");
    const sub = await buyByCard(t, who, 1);
    let receipts = await mails(t, who.email, "Your VPN receipt");
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.text).toContain("Thank you for your payment of $9.99 for the 1 Month plan.");
    expect(receipts[0]!.text).toContain("Paid with: Visa ending in 4242.");
    expect(receipts[0]!.text).toMatch(/It pays for \d{2} \w+, \d{4} to \d{2} \w+, \d{4}\./);
    // Our invoice (a PDF with its INV number) for a card payment too (issue 35).
    expect(receipts[0]!.text).toMatch(/Invoice INV-\d{4}-\d{6}:\n\S+\/billing\/invoice\/\d+\/stripe\n/);

    // The same payment reported again (the page and the webhook, replays): no second receipt.
    const row = await t.db.selectFrom("transactions").select("gateway_ref").where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    const again = { userId: who.userId, gatewayRef: row.gateway_ref!, periodStart: new Date(), periodEnd: new Date(sub.sub_exp_date) };
    await Promise.all([t.api.payments.onPaid!(again), t.api.payments.onPaid!(again)]);
    expect(await mails(t, who.email, "Your VPN receipt")).toHaveLength(1);

    try {
      await t.post("/dev/clock", { form: { days: "32" } });
      receipts = await mails(t, who.email, "Your VPN receipt");
      expect(receipts).toHaveLength(2);
      expect(receipts[0]!.text).toContain("$9.99");
      await t.api.runDueJobs();
      expect(await mails(t, who.email, "Your VPN receipt")).toHaveLength(2);
    } finally {
      t.clock.reset();
    }
  });

  it("sends a receipt for a crypto payment", async () => {
    const who = await customer(t, "receipt-crypto@example.com");
    await buyByCrypto(t, who, ONE_MONTH_BY_CRYPTO);
    const receipts = await mails(t, who.email, "Your VPN receipt");
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.text).toContain("Paid with: Crypto (BitPay).");
    expect(receipts[0]!.text).toMatch(/\/billing\/invoice\/\d+\/bitpay/);
  });

  it("reminds 30 days before a 1-year renewal, once even when the job runs twice or in parallel", async () => {
    const who = await customer(t, "remind-year@example.com");
    const sub = await buyByCard(t, who, 5);
    try {
      moveTo(t, sub.sub_exp_date, 31 * DAY);
      await t.api.runDueJobs();
      expect(await mails(t, who.email, "Your VPN plan renews soon")).toHaveLength(0);
      moveTo(t, sub.sub_exp_date, 30 * DAY - 60_000);
      await Promise.all([t.api.runDueJobs(), t.api.runDueJobs(), t.api.runDueJobs()]);
      await t.api.runDueJobs();
      const reminders = await mails(t, who.email, "Your VPN plan renews soon");
      expect(reminders).toHaveLength(1);
      const date = formatDate(sub.sub_exp_date);
      expect(reminders[0]!.text).toContain(`Your 1 Year plan renews automatically on ${date}.`);
      expect(reminders[0]!.text).toContain("We will charge $71.88 to Visa ending in 4242.");
      expect(reminders[0]!.text).toMatch(/\/billing\n/);
    } finally {
      t.clock.reset();
    }
  });

  it("reminds 7 days before a 1-month renewal; none when auto-renewal is off or the account is deleted", async () => {
    const who = await customer(t, "remind-month@example.com");
    const off = await customer(t, "remind-off@example.com");
    const gone = await customer(t, "remind-gone@example.com");
    const sub = await buyByCard(t, who, 1);
    const offSub = await buyByCard(t, off, 1);
    await buyByCard(t, gone, 1);
    expect((await t.post("/api/stripe/auto-renewal", { token: off.token, json: { type: "disable", subscriptionId: offSub.id } })).status).toBe(200);
    await t.db.updateTable("users").set({ deleted_at: new Date().toISOString() }).where("id", "=", gone.userId).execute();
    try {
      moveTo(t, sub.sub_exp_date, 8 * DAY);
      await t.api.runDueJobs();
      expect(await mails(t, who.email, "Your VPN plan renews soon")).toHaveLength(0);
      moveTo(t, sub.sub_exp_date, 7 * DAY - 60_000);
      await t.api.runDueJobs();
      await t.api.runDueJobs();
      const reminders = await mails(t, who.email, "Your VPN plan renews soon");
      expect(reminders).toHaveLength(1);
      expect(reminders[0]!.text).toContain("We will charge $9.99 to Visa ending in 4242.");
      expect(await mails(t, off.email, "Your VPN plan renews soon")).toHaveLength(0);
      expect(await mails(t, gone.email, "Your VPN plan renews soon")).toHaveLength(0);
    } finally {
      t.clock.reset();
    }
  });

  it("reminds of the plan a change waits for: its price, and that it is what renews", async () => {
    const who = await customer(t, "remind-change@example.com");
    const sub = await buyByCard(t, who, 2);
    const changed = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 1, idempotency_key: `remind-change-${Date.now()}` } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.kind).toBe("at_renewal");
    try {
      moveTo(t, sub.sub_exp_date, 7 * DAY - 60_000);
      await t.api.runDueJobs();
      const reminders = await mails(t, who.email, "Your VPN plan renews soon");
      expect(reminders).toHaveLength(1);
      expect(reminders[0]!.text).toContain(`Your 3 Months plan renews automatically on ${formatDate(sub.sub_exp_date)}, as the 1 Month plan you changed to.`);
      expect(reminders[0]!.text).toContain("We will charge $9.99 to Visa ending in 4242.");
    } finally {
      t.clock.reset();
    }
  });

  it("confirms auto-renewal off and on with the date and time", async () => {
    const who = await customer(t, "confirm-renewal@example.com");
    const sub = await buyByCard(t, who, 1);
    expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } })).status).toBe(200);
    const offMail = await mails(t, who.email, "Auto-renewal is off");
    expect(offMail).toHaveLength(1);
    expect(offMail[0]!.text).toMatch(/You turned off auto-renewal of your 1 Month plan: \d{2} \w+, \d{4} at \d{2}:\d{2} UTC\./);
    expect(offMail[0]!.text).toMatch(/Your plan ends on \d{2} \w+, \d{4} and will not be charged again\./);
    // Asking for what is already set changes nothing and sends nothing.
    expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } })).status).toBe(200);
    expect(await mails(t, who.email, "Auto-renewal is off")).toHaveLength(1);

    expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "enable", subscriptionId: sub.id } })).status).toBe(200);
    const onMail = await mails(t, who.email, "Auto-renewal is on");
    expect(onMail).toHaveLength(1);
    expect(onMail[0]!.text).toMatch(/You turned on auto-renewal of your 1 Month plan: \d{2} \w+, \d{4} at \d{2}:\d{2} UTC\./);
    expect(onMail[0]!.text).toContain("for $9.99.");
  });

  it("warns a month before the card that pays expires, once", async () => {
    const who = await customer(t, "card-expiry@example.com");
    // A card valid through the month 45 days from now: it expires when the month after begins.
    const month = new Date(t.clock.now().getTime() + 45 * DAY);
    const res = await t.post("/dev/stripe/v1/payment_methods", {
      form: {
        type: "card",
        "card[number]": GOOD,
        "card[exp_month]": String(month.getUTCMonth() + 1),
        "card[exp_year]": String(month.getUTCFullYear()),
        "card[cvc]": "123",
        "billing_details[name]": "Pat Payer",
        "billing_details[address][postal_code]": "10115",
      },
      headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}` },
    });
    expect(res.status, res.text).toBe(200);
    await buyByCard(t, who, 5, res.body.id as string);
    const expiresAt = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1);
    try {
      moveTo(t, new Date(expiresAt).toISOString(), 32 * DAY);
      await t.api.runDueJobs();
      expect(await mails(t, who.email, "Your card expires soon")).toHaveLength(0);
      moveTo(t, new Date(expiresAt).toISOString(), 30 * DAY);
      await Promise.all([t.api.runDueJobs(), t.api.runDueJobs()]);
      await t.api.runDueJobs();
      const warnings = await mails(t, who.email, "Your card expires soon");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.text).toContain("Visa ending in 4242, which pays your VPN plan, expires at the end of");
      expect(warnings[0]!.text).toContain("/billing?tab=payment-method");
    } finally {
      t.clock.reset();
    }
  });

  it("sends 'plan ended' once when a plan ends with auto-renewal off", async () => {
    const who = await customer(t, "plan-ended@example.com");
    const sub = await buyByCard(t, who, 1);
    expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } })).status).toBe(200);
    try {
      await t.post("/dev/clock", { form: { days: "32" } });
      await t.api.runDueJobs();
      const ended = await mails(t, who.email, "Your VPN plan has ended");
      expect(ended).toHaveLength(1);
      expect(ended[0]!.text).toContain("Your 1 Month plan ended on");
      expect(await mails(t, who.email, "Your VPN receipt")).toHaveLength(1);
    } finally {
      t.clock.reset();
    }
  });

  it("sends 'plan ended' when the one-time plan runs out", async () => {
    const who = await customer(t, "plan-ended-once@example.com");
    const sub = await buyByCard(t, who, 7);
    // Its five years have passed (written into the row: moving the clock by years would renew every other test's plan 60 times).
    const ended = new Date(t.clock.now().getTime() - DAY).toISOString();
    await t.db.updateTable("subscriptions").set({ sub_start_date: new Date(Date.parse(ended) - 1826 * DAY).toISOString(), sub_exp_date: ended }).where("id", "=", sub.id).execute();
    await Promise.all([t.api.runDueJobs(), t.api.runDueJobs()]);
    await t.api.runDueJobs();
    const mailsEnded = await mails(t, who.email, "Your VPN plan has ended");
    expect(mailsEnded).toHaveLength(1);
    expect(mailsEnded[0]!.text).toContain("Your 5 Years plan ended on");
    expect(await mails(t, who.email, "Your VPN plan renews soon")).toHaveLength(0);
  });

  it("sends no 'plan ended' for a plan that ended unpaid or for a deleted account", async () => {
    const unpaid = await customer(t, "ended-unpaid@example.com");
    const gone = await customer(t, "ended-gone@example.com");
    const unpaidSub = await buyByCard(t, unpaid, 1);
    const goneSub = await buyByCard(t, gone, 1);
    expect((await t.post("/api/stripe/auto-renewal", { token: gone.token, json: { type: "disable", subscriptionId: goneSub.id } })).status).toBe(200);
    await t.db.updateTable("users").set({ deleted_at: new Date().toISOString() }).where("id", "=", gone.userId).execute();
    // The renewal is refused, and the subscription then reads as not renewing (as when Stripe cancels it).
    const { stripe } = t.api.payments.gateway;
    const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", unpaid.userId).executeTakeFirstOrThrow();
    const declining = await paymentMethod(t, DECLINED);
    await stripe.paymentMethods.attach(declining, { customer: user.stripe_customer_id! });
    await stripe.subscriptions.update(unpaidSub.stripe_sub_id, { default_payment_method: declining });
    try {
      await t.post("/dev/clock", { form: { days: "32" } });
      await t.db.updateTable("subscriptions").set({ cancel_at_period_end: 1 }).where("id", "=", unpaidSub.id).execute();
      await t.api.runDueJobs();
      expect(await mails(t, unpaid.email, "Your VPN plan has ended")).toHaveLength(0);
      expect(await mails(t, gone.email, "Your VPN plan has ended")).toHaveLength(0);
    } finally {
      t.clock.reset();
    }
  });

  it("answers next_charge (amount, date, card) and ends_on once auto-renewal is off", async () => {
    const who = await customer(t, "next-charge@example.com");
    const none = await t.post("/api/subscription/active", { token: who.token });
    expect(none.body.data).toMatchObject({ subscription: null, next_charge: null, ends_on: null });
    const sub = await buyByCard(t, who, 1);
    const expected = { amount: "$9.99", amount_cents: 999, date: sub.sub_exp_date, card: { brand: "visa", last4: "4242" } };
    const active = await t.post("/api/subscription/active", { token: who.token });
    expect(active.body.data).toMatchObject({ next_charge: expected, ends_on: null });
    const home = await t.get("/api/account/home", { token: who.token });
    expect(home.body.data).toMatchObject({ next_charge: expected, ends_on: null });

    expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } })).status).toBe(200);
    const off = await t.get("/api/account/home", { token: who.token });
    expect(off.body.data).toMatchObject({ next_charge: null, ends_on: sub.sub_exp_date });
  });
});
