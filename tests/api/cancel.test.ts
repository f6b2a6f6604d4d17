import { describe, expect, it } from "vitest";
import { CANCEL_PROOF_TTL_SECONDS, createCancelProof } from "../../api/billing/cancel-without-sign-in";
import { formatDate as longDate } from "../../api/platform/dates";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, TWO_YEARS_BY_CRYPTO, buyByCrypto, customer, newKey, paymentMethod } from "./payment-support";
import { uniqueEmail } from "../support/emails";

// Cancel without signing in (issue 22, docs/decisions/038): a 'cancel' code, then a proof that can only
// show the account's subscription and turn its auto-renewal off.

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };
const SENT = "If an account exists for this email, we have sent a verification code.";
const INVALID = "Invalid verification code";
const EXPIRED = "This code has expired. Please request a new one.";
const BURNT = "Too many wrong attempts. Please request a new code.";
const PROOF_INVALID = "This page has expired. Please start again.";

async function buyByCard(t: TestApi, who: { token: string; email: string }, planId: number) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.subscription as { id: number; stripe_sub_id: string; sub_exp_date: string };
}

function wrongCode(code: string, i = 0): string {
  return String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");
}

describe.each(databases())("cancel without signing in ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });
  const sendCode = (email: string, headers?: Record<string, string>) => t.post("/api/anonymous/cancel/send-code", { json: { email }, headers });
  const verify = (email: string, code: string) => t.post("/api/anonymous/cancel/verify", { json: { email, code } });
  const view = (proof: string) => t.post("/api/anonymous/cancel/subscription", { json: { proof } });
  const turnOff = (proof: string, headers?: Record<string, string>) =>
    t.post("/api/anonymous/cancel/turn-off-auto-renewal", { json: { proof }, headers });

  async function proofFor(email: string): Promise<string> {
    expect((await sendCode(email)).status).toBe(200);
    const verified = await verify(email, await t.latestCode(email));
    expect(verified.status, verified.text).toBe(200);
    return verified.body.data.proof as string;
  }

  it("answers the same for an unknown email, emails only the account, and refuses a guess for either as a wrong code", async () => {
    const known = uniqueEmail("cancel-known");
    const unknown = uniqueEmail("cancel-unknown");
    await t.createUser({ email: known, password: "password-123" });
    const a = await sendCode(known);
    const b = await sendCode(unknown);
    expect(a.status).toBe(200);
    expect(b.status).toBe(a.status);
    expect(b.body).toEqual(a.body);
    expect(a.body).toEqual({ status: true, success: true, message: SENT, data: null });
    // The 30 s gate for both.
    const againA = await sendCode(known);
    const againB = await sendCode(unknown);
    expect(againA.status).toBe(429);
    expect(againB.status).toBe(429);
    expect(againB.body.message).toBe(againA.body.message);

    const mails = await t.mailbox(known);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Your code to cancel your subscription");
    expect(await t.mailbox(unknown)).toHaveLength(0);

    const code = await t.latestCode(known);
    const guessKnown = await verify(known, wrongCode(code));
    const guessUnknown = await verify(unknown, code);
    expect(guessKnown.status).toBe(422);
    expect(guessUnknown.status).toBe(422);
    expect(guessKnown.body.message).toBe(INVALID);
    expect(guessUnknown.body.message).toBe(INVALID);
    expect(guessUnknown.body.errors).toEqual(guessKnown.body.errors);
  });

  it("turns auto-renewal off for a card subscription: Stripe and our row, the email with date and time, the security event; the proof is used up", async () => {
    const who = await customer(t, uniqueEmail("cancel-card"));
    const sub = await buyByCard(t, who, 1);
    const proof = await proofFor(who.email);

    const shown = await view(proof);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data).toEqual({
      email: who.email,
      subscription: {
        title: "1 Month",
        subscription_by: "stripe",
        billing_type: "recurring",
        renews_on: sub.sub_exp_date,
        ends_on: null,
        can_turn_off: true,
        note: null,
      },
    });

    const done = await turnOff(proof, { "user-agent": "CancelTest/1.0", "x-forwarded-for": "203.0.113.45" });
    expect(done.status, done.text).toBe(200);
    expect(done.body.message).toBe("Auto-renewal is off");
    expect(done.body.data).toMatchObject({ title: "1 Month", ends_on: sub.sub_exp_date });
    const at = new Date(done.body.data.turned_off_at);
    expect(Math.abs(at.getTime() - t.clock.now().getTime())).toBeLessThan(5000);

    expect((await t.api.payments.gateway.stripe.subscriptions.retrieve(sub.stripe_sub_id)).cancel_at_period_end).toBe(true);
    const row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ cancel_at_period_end: 1, subs_status: "subscription_cancelled" });

    const [mail] = await t.mailbox(who.email);
    expect(mail!.subject).toBe("Auto-renewal is off");
    const time = at.toISOString().slice(11, 16);
    expect(mail!.text).toContain(`auto-renewal of your 1 Month plan: ${longDate(at)} at `);
    expect(mail!.text).toMatch(/ at \d\d:\d\d UTC\./);
    // Within a minute of the answer's time (the email is stamped a moment earlier).
    expect(mail!.text).toMatch(new RegExp(`${longDate(at)} at (${time}|\\d\\d:\\d\\d) UTC`));
    expect(mail!.text).toContain(`Your plan ends on ${longDate(sub.sub_exp_date)}`);

    const events = await t.db.selectFrom("security_events").selectAll().where("user_id", "=", who.userId).execute();
    const cancelled = events.filter((e) => e.kind === "auto_renewal_cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ user_agent: "CancelTest/1.0", network: "203.0.113.0/24", detail: "1 Month, without signing in" });

    // Used up: neither shows nor turns off again.
    const again = await turnOff(proof);
    expect(again.status).toBe(422);
    expect(again.body.message).toBe(PROOF_INVALID);
    expect((await view(proof)).body.message).toBe(PROOF_INVALID);

    // A new code: the page now says it does not renew, without the button.
    t.clock.advanceSeconds(31);
    const laterProof = await proofFor(who.email);
    const later = await view(laterProof);
    expect(later.body.data.subscription).toMatchObject({ renews_on: null, ends_on: sub.sub_exp_date, can_turn_off: false, note: "Auto-renewal is already off." });
    // The page's note in the page's language (issue 36).
    const german = await t.post("/api/anonymous/cancel/subscription", { json: { proof: laterProof }, headers: { "accept-language": "de" } });
    expect(german.body.data.subscription.note).toBe("Die automatische Verlängerung ist bereits ausgeschaltet.");
    t.clock.reset();
  });

  it("a proof acts only for its account, is not a session, and expires after 15 minutes", async () => {
    const a = await customer(t, uniqueEmail("cancel-a"));
    const b = await customer(t, uniqueEmail("cancel-b"));
    const subA = await buyByCard(t, a, 1);
    const subB = await buyByCard(t, b, 1);
    const proof = await proofFor(a.email);

    // Not a bearer token.
    expect((await t.post("/api/subscription/active", { token: proof })).status).toBe(401);
    expect((await turnOff(proof)).status).toBe(200);
    const rowOf = (id: number) => t.db.selectFrom("subscriptions").select("cancel_at_period_end").where("id", "=", id).executeTakeFirstOrThrow();
    expect((await rowOf(subA.id)).cancel_at_period_end).toBe(1);
    expect((await rowOf(subB.id)).cancel_at_period_end).toBe(0);

    // Expiry (real time, like every token): one made 15 minutes and a second ago is refused.
    const old = await createCancelProof(t.db, b.userId, Date.now() - (CANCEL_PROOF_TTL_SECONDS + 1) * 1000);
    expect((await view(old.proof)).status).toBe(422);
    const refused = await turnOff(old.proof);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ message: PROOF_INVALID, errors: { code: "link_invalid" } });
    expect((await rowOf(subB.id)).cancel_at_period_end).toBe(0);
    // One just inside its time works; anything that is not a proof is refused the same way.
    const fresh = await createCancelProof(t.db, b.userId, Date.now() - (CANCEL_PROOF_TTL_SECONDS - 30) * 1000);
    expect((await view(fresh.proof)).status).toBe(200);
    for (const bad of ["", "x".repeat(43), "not a proof", "a".repeat(300)]) {
      const res = await view(bad);
      expect(res.status).toBe(422);
    }
    // A newer proof retires the older one.
    t.clock.advanceSeconds(31);
    const newer = await proofFor(b.email);
    expect((await view(fresh.proof)).status).toBe(422);
    expect((await view(newer)).status).toBe(200);
    t.clock.reset();
  });

  it("says what it cannot do: no subscription, crypto, within 24 hours of the renewal", async () => {
    const free = await customer(t, uniqueEmail("cancel-free"));
    const freeProof = await proofFor(free.email);
    expect((await view(freeProof)).body.data).toEqual({ email: free.email, subscription: null });
    const none = await turnOff(freeProof);
    expect(none.status).toBe(404);
    expect(none.body.message).toBe("There is no active subscription on this account.");

    const crypto = await customer(t, uniqueEmail("cancel-crypto"));
    await buyByCrypto(t, crypto, TWO_YEARS_BY_CRYPTO);
    const cryptoProof = await proofFor(crypto.email);
    const shown = (await view(cryptoProof)).body.data.subscription;
    expect(shown).toMatchObject({ subscription_by: "bitpay", can_turn_off: false, renews_on: null });
    expect(shown.note).toMatch(/^Crypto plans do not renew automatically/);
    expect((await turnOff(cryptoProof)).status).toBe(422);

    const late = await customer(t, uniqueEmail("cancel-late"));
    const sub = await buyByCard(t, late, 1);
    t.clock.advanceSeconds((Date.parse(sub.sub_exp_date) - t.clock.now().getTime() - 12 * 3_600_000) / 1000);
    try {
      const lateProof = await proofFor(late.email);
      const lateView = (await view(lateProof)).body.data.subscription;
      expect(lateView).toMatchObject({ can_turn_off: false, note: "Auto-renewal must be turned off at least 24 hours before the end of the billing cycle." });
      const refused = await turnOff(lateProof);
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe("Auto-renewal must be turned off at least 24 hours before the end of the billing cycle.");
      // Refused, the proof is not used up.
      expect((await view(lateProof)).status).toBe(200);
    } finally {
      t.clock.reset();
    }
  });

  it("holds the code's limits: 5 wrong tries, 300 s, its own purpose, parallel guesses and turn-offs", async () => {
    const who = await customer(t, uniqueEmail("cancel-limits"));
    await buyByCard(t, who, 1);
    await sendCode(who.email);
    const code = await t.latestCode(who.email);
    const guesses = await Promise.all(Array.from({ length: 12 }, (_, i) => verify(who.email, wrongCode(code, i))));
    expect(guesses.filter((r) => r.body.message === INVALID)).toHaveLength(5);
    expect(guesses.filter((r) => r.body.message === BURNT)).toHaveLength(7);
    expect((await verify(who.email, code)).body.message).toBe(BURNT);

    // Expiry after 300 s (the business clock).
    t.clock.advanceSeconds(31);
    await sendCode(who.email);
    const second = await t.latestCode(who.email);
    t.clock.advanceSeconds(301);
    expect((await verify(who.email, second)).body.message).toBe(EXPIRED);

    // A sign-in code is not a cancel code, and a cancel code does not sign in.
    await t.post("/api/auth/get-login-code", { json: { email: who.email } });
    const loginCode = await t.latestCode(who.email);
    expect((await verify(who.email, loginCode)).body.message).toBe(EXPIRED);
    t.clock.advanceSeconds(31);
    await sendCode(who.email);
    const cancelCode = await t.latestCode(who.email);
    expect((await t.post("/api/auth/code-login", { json: { email: who.email, code: loginCode } })).status).toBe(200);
    t.clock.advanceSeconds(31);
    await t.post("/api/auth/get-login-code", { json: { email: who.email } });
    expect((await t.post("/api/auth/code-login", { json: { email: who.email, code: cancelCode } })).status).toBe(422);

    // One proof per code, and one turn-off per proof, in parallel too.
    const verified = await Promise.all(Array.from({ length: 4 }, () => verify(who.email, cancelCode)));
    expect(verified.filter((r) => r.status === 200)).toHaveLength(1);
    const proof = verified.find((r) => r.status === 200)!.body.data.proof as string;
    const offs = await Promise.all(Array.from({ length: 4 }, () => turnOff(proof)));
    expect(offs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(offs.filter((r) => r.status === 422)).toHaveLength(3);
    const mails = (await t.mailbox(who.email)).filter((m) => m.subject === "Auto-renewal is off");
    expect(mails).toHaveLength(1);
    t.clock.reset();
  });
});

describe.each(databases())("cancel codes' hourly caps ($name)", (kind) => {
  const t = useApi(kind, { env: { CODE_MAX_PER_EMAIL_PER_HOUR: "3", CODE_MAX_PER_IP_PER_HOUR: "5" } });
  const sendCode = (email: string, ip: string) => t.post("/api/anonymous/cancel/send-code", { json: { email }, headers: { "x-forwarded-for": ip } });

  it("caps sends per client address under a parallel burst, the same for unknown and known emails", async () => {
    const ip = "198.51.100.120";
    const emails = Array.from({ length: 12 }, (_, i) => uniqueEmail(`cancel-burst-${i}`));
    for (const email of emails.slice(0, 6)) await t.createUser({ email, password: "password-123" });
    const answers = await Promise.all(emails.map((email) => sendCode(email, ip)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(7);
    for (const r of refused) expect(r.body.message).toBe("Too many code requests. Please try again later.");
  });

  it("caps sends per email across addresses", async () => {
    const email = uniqueEmail("cancel-cap-email");
    for (let i = 0; i < 3; i++) {
      expect((await sendCode(email, `203.0.113.${60 + i}`)).status).toBe(200);
      t.clock.advanceSeconds(31);
    }
    const blocked = await sendCode(email, "203.0.113.99");
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe("Too many code requests. Please try again later.");
    t.clock.reset();
  });
});
