import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSubscription } from "../support/accounts";
import { databases, startApi, type TestApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// A scaled deploy runs several API instances on one database, and each runs the scheduled jobs on its
// own timer (api/http/app.ts). Every job must be claimed in the database so that what comes due happens
// once: one crypto renewal invoice and one email, one card renewal charge.

describe.each(databases({ postgres: "job claims across two instances" }))("two API instances on one database run their due jobs at the same time ($name)", (kind) => {
  let first: TestApi;
  let second: TestApi;

  beforeAll(async () => {
    first = await startApi(kind);
    second = await startApi(kind, { databaseUrl: first.config.databaseUrl });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  /** Both instances' clocks move together (they share the business time), then both run their jobs at once, twice over. */
  async function bothRunDueJobs(days: number) {
    first.clock.advanceDays(days);
    second.clock.advanceDays(days);
    await Promise.all([first.api.runDueJobs(), second.api.runDueJobs(), first.api.runDueJobs(), second.api.runDueJobs()]);
  }

  it("a crypto plan gets one renewal invoice and one email; a card plan renews with one charge", async () => {
    // A card customer on the monthly plan, paid through the card sandbox (instance one).
    const card = await customer(first, "jobs-card@example.com");
    const paid = await first.post("/api/payments/card", {
      token: card.token,
      json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(first, GOOD), planId: 1, email: card.email },
    });
    expect(paid.status, paid.text).toBe(200);

    // A crypto customer whose monthly plan ends in 30 days (paid by BitPay, renewed by invoice).
    const cryptoUserId = await first.createUser({ email: "jobs-crypto@example.com", password: "jobs-password" });
    const now = first.clock.now();
    await insertSubscription(first.db, cryptoUserId, {
      now,
      plan_id: 1,
      title: "1 Month",
      subscription_by: "bitpay",
      subs_status: "subscription_started",
      days: 30,
      amount_cents: 999,
      coupon_code: null,
    });

    try {
      // 28 days on: the crypto plan is 2 days from its end, within the 3-day notice.
      await bothRunDueJobs(28);
      const renewals = await first.db.selectFrom("crypto_invoices").select(["kind", "status"]).where("user_id", "=", cryptoUserId).execute();
      expect(renewals).toEqual([{ kind: "renewal", status: "due" }]);
      const mails = await first.mailbox("jobs-crypto@example.com");
      expect(mails.filter((mail) => /renewal invoice/i.test(mail.subject))).toHaveLength(1);

      // 32 days on: the card plan's period has ended and it renews, charged once.
      await bothRunDueJobs(4);
      const charges = await first.db.selectFrom("transactions").select(["status", "amount_cents"]).where("user_id", "=", card.userId).orderBy("id").execute();
      expect(charges.map((row) => row.status)).toEqual(["paid", "paid"]);
      // Running again renews nothing more, on either instance.
      await bothRunDueJobs(1);
      expect(await first.db.selectFrom("transactions").select("id").where("user_id", "=", card.userId).execute()).toHaveLength(2);
      expect(await first.db.selectFrom("crypto_invoices").select("id").where("user_id", "=", cryptoUserId).execute()).toHaveLength(1);
    } finally {
      first.clock.reset();
      second.clock.reset();
    }
  });
});
