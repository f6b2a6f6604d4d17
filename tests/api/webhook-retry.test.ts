import Stripe from "stripe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SANDBOX_WEBHOOK_SECRET } from "../../api/sandboxes/stripe";
import { databases, useApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";
import { until } from "../support/until";

// A webhook whose handling never finished (the instance was killed in the middle: `npm run test:deploy`
// found it) gets no answer, so Stripe sends it again. That delivery must be handled, not taken for done:
// an event counts as handled once its handler has finished, and the handlers are idempotent, so the first
// delivery finishing after all changes nothing twice.

describe.each(databases({ postgres: "two deliveries of one event at once: the record insert races" }))("a Stripe webhook sent again while its first delivery is unfinished ($name)", (kind) => {
  const t = useApi(kind);
  afterEach(() => t.api.stripeSandbox!.faults.clear());

  it("is handled by the second delivery: the payment is recorded then, and once", async () => {
    const who = await customer(t, "webhook-again@example.com");
    // The invoice.paid handler's first call back to the gateway hangs: its delivery stays unfinished, as a killed
    // instance's does, until the test releases it (longer than the test may take: it must be released).
    const faults = t.api.stripeSandbox!.faults;
    faults.inject({ method: "GET", path: "/v1/subscriptions/:id", when: "before", kind: "delay", delayMs: 60_000 });
    const take = vi.spyOn(faults, "take");
    const hung = () => take.mock.results.some((result) => result.value !== undefined);
    const purchase = t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", email: who.email, paymentMethodId: await paymentMethod(t, GOOD), planId: 1, idempotency_key: newKey() },
    });
    try {
    const event = await until("the invoice.paid delivery under way, hung", async () => {
      if (!hung()) return undefined;
      const rows = await t.db.selectFrom("stripe_sandbox_objects").select(["type", "data"]).where("type", "in", ["event", "webhook_delivery"]).execute();
      const paid = rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) })).find((row) => row.type === "event" && row.data.type === "invoice.paid");
      const underWay = rows.some((row) => row.type === "webhook_delivery" && JSON.parse(row.data).event === paid?.data.id);
      return paid && underWay ? paid.data : undefined;
    }, { timeoutMs: 10_000 });

    // Stripe's retry of the unanswered delivery.
    const payload = JSON.stringify(event);
    const again = await t.post("/api/payments/stripe/webhook", {
      raw: payload,
      headers: { "content-type": "application/json", "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: SANDBOX_WEBHOOK_SECRET }) },
    });
    expect(again.status, again.text).toBe(200);
    const recorded = await t.db.selectFrom("transactions").select(["status", "amount_cents"]).where("user_id", "=", who.userId).execute();
    expect(recorded).toEqual([{ status: "paid", amount_cents: 999 }]);

    // The first delivery and the purchase finish afterwards: nothing twice. (The hung call answers now, as it
    // would once its delay was over.)
    faults.releaseDelays();
    const paid = await purchase;
    expect(paid.status, paid.text).toBe(200);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(1);
    expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(1);
    expect(await t.db.selectFrom("webhook_events").select("id").where("id", "=", event.id).execute()).toHaveLength(1);
    } finally {
      // A failed expectation still lets the hung purchase end before the API closes.
      faults.releaseDelays();
      await purchase;
      take.mockRestore();
    }
  });
});
