import { describe, expect, it } from "vitest";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// The 'Payment Method' tab's API (commerce §2, §3, §4, §7): saved cards through the Stripe sandbox.

async function addCard(t: TestApi, token: string, extra: Record<string, unknown> = {}) {
  const pm = await paymentMethod(t, GOOD);
  const res = await t.post("/api/add-new-card", {
    token,
    json: {
      payment_method_id: pm,
      // What the browser claims is ignored: Stripe's word counts.
      card_brand: "amex",
      card_last4: "0000",
      card_exp_month: 1,
      card_exp_year: 2020,
      billing_name: "Pat Payer",
      billing_postal: "10115",
      ...extra,
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: number; payment_method_id: string; is_default: boolean; card_brand: string; card_number: string; card_exp_year: number };
}

async function list(t: TestApi, token: string, query = "") {
  const res = await t.get(`/api/getCurrentcards${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe.each(databases())("saved cards ($name)", (kind) => {
  const t = useApi(kind);

  it("adds two cards: the first is the default, brand and expiry come from Stripe, attached to the customer", async () => {
    const { token, userId } = await customer(t, "cards-two@example.com");
    const first = await addCard(t, token);
    expect(first).toMatchObject({ is_default: true, card_brand: "visa", card_number: "**** **** **** 4242" });
    expect(first.card_exp_year).toBe(new Date().getUTCFullYear() + 3);
    const second = await addCard(t, token);
    expect(second.is_default).toBe(false);

    const body = await list(t, token);
    expect(body.message).toBeTypeOf("string");
    expect(body.data.data.map((c: { id: number }) => c.id)).toEqual([first.id, second.id]);
    expect(body.data.pagination).toEqual({ current_page: 1, last_page: 1, per_page: 6, total: 2 });
    expect(body.pagination).toEqual(body.data.pagination);

    const user = await t.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    const pm = await t.api.payments.gateway.stripe.paymentMethods.retrieve(second.payment_method_id);
    expect(pm.customer).toBe(user.stripe_customer_id);
    const stripeCustomer = await t.api.payments.gateway.stripe.customers.retrieve(user.stripe_customer_id!);
    expect(!stripeCustomer.deleted && stripeCustomer.invoice_settings.default_payment_method).toBe(first.payment_method_id);
  });

  it("keeps one default: adding a default clears the others, set-default moves it, the default cannot be deleted", async () => {
    const { token, userId } = await customer(t, "cards-default@example.com");
    const a = await addCard(t, token);
    const b = await addCard(t, token, { is_default: 1 });
    expect(b.is_default).toBe(true);
    const rows = await t.db.selectFrom("payment_methods").selectAll().where("user_id", "=", userId).execute();
    expect(rows.filter((r) => r.is_default === 1).map((r) => Number(r.id))).toEqual([b.id]);

    const refused = await t.request("DELETE", `/api/payment-methods/${b.id}/delete-saved-card`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body.errors.message).toBe("The default card cannot be deleted. Make another card the default first.");

    const set = await t.request("PUT", `/api/payment-methods/${a.id}/set-default`, { token });
    expect(set.status, set.text).toBe(200);
    expect(set.body.message).toBe("Payment Method Set as Defaut Successfully.");
    expect(set.body.data.is_default).toBe(true);
    const blank = await t.request("PUT", "/api/payment-methods/%20/set-default", { token });
    expect(blank.status).toBe(422);
    expect(blank.body.errors.message).toBe("Payment method ID is required");

    const deleted = await t.request("DELETE", `/api/payment-methods/${b.id}/delete-saved-card`, { token });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.message).toBe("Payment Method Deleted Successfully.");
    const pm = await t.api.payments.gateway.stripe.paymentMethods.retrieve(b.payment_method_id);
    expect(pm.customer).toBeNull();
    const body = await list(t, token);
    expect(body.data.data.map((c: { id: number; is_default: boolean }) => [c.id, c.is_default])).toEqual([[a.id, true]]);
  });

  it("updates the expiry and the cardholder name at Stripe and here", async () => {
    const { token } = await customer(t, "cards-edit@example.com");
    const card = await addCard(t, token);
    const year = new Date().getUTCFullYear() + 5;
    const res = await t.request("PUT", `/api/payment-methods/${card.id}/update-card-details`, {
      token,
      json: { card_exp_month: 7, card_exp_year: year, billing_name: "Robin Renamed" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("Payment Method Updated Successfully.");
    expect(res.body.data).toMatchObject({ card_exp_month: 7, card_exp_year: year, billing_name: "Robin Renamed", card_exp: `07/${String(year % 100).padStart(2, "0")}` });
    const pm = await t.api.payments.gateway.stripe.paymentMethods.retrieve(card.payment_method_id);
    expect(pm.card?.exp_month).toBe(7);
    expect(pm.billing_details.name).toBe("Robin Renamed");

    const bad = await t.request("PUT", `/api/payment-methods/${card.id}/update-card-details`, {
      token,
      json: { card_exp_month: 13, card_exp_year: year, billing_name: "" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.fields.card_exp_month).toBeDefined();
    expect(bad.body.errors.fields.billing_name).toEqual(["Please enter the cardholder name"]);
  });

  it("pages the cards six at a time", async () => {
    const { token } = await customer(t, "cards-pages@example.com");
    for (let i = 0; i < 7; i++) await addCard(t, token);
    const one = await list(t, token, "?page=1&per_page=6");
    expect(one.data.data).toHaveLength(6);
    expect(one.data.pagination).toEqual({ current_page: 1, last_page: 2, per_page: 6, total: 7 });
    const two = await list(t, token, "?page=2");
    expect(two.data.data).toHaveLength(1);
    expect(two.data.pagination).toEqual({ current_page: 2, last_page: 2, per_page: 6, total: 7 });
    const ids = new Set([...one.data.data, ...two.data.data].map((c: { id: number }) => c.id));
    expect(ids.size).toBe(7);
    expect((await t.get("/api/getCurrentcards?page=0", { token })).status).toBe(422);
  });

  it("answers 404 for another account's card and refuses its payment method", async () => {
    const owner = await customer(t, "cards-owner@example.com");
    const other = await customer(t, "cards-other@example.com");
    const card = await addCard(t, owner.token);
    const second = await addCard(t, owner.token);
    for (const [method, path, json] of [
      ["PUT", `/api/payment-methods/${second.id}/set-default`, undefined],
      ["DELETE", `/api/payment-methods/${second.id}/delete-saved-card`, undefined],
      ["PUT", `/api/payment-methods/${card.id}/update-card-details`, { card_exp_month: 1, card_exp_year: 2040, billing_name: "Thief" }],
    ] as const) {
      const res = await t.request(method, path, { token: other.token, ...(json ? { json } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const steal = await t.post("/api/add-new-card", { token: other.token, json: { payment_method_id: card.payment_method_id, is_default: 0 } });
    expect(steal.status).toBe(422);
    expect((await list(t, other.token)).data.data).toEqual([]);
    expect((await t.get("/api/getCurrentcards")).status).toBe(401);
  });

  it("update-payment-method makes a saved card pay the Stripe subscription", async () => {
    const { token, email } = await customer(t, "cards-sub@example.com");
    const paid = await t.post("/api/payments/card", {
      token,
      json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email },
    });
    expect(paid.status, paid.text).toBe(200);
    const subscription = paid.body.data.subscription as { id: number; stripe_sub_id: string };
    const card = await addCard(t, token);
    const res = await t.post("/api/stripe/update-payment-method", {
      token,
      json: { subscriptionId: subscription.stripe_sub_id, paymentMethodId: card.payment_method_id },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe("Payment method updated successfully");
    const sub = await t.api.payments.gateway.stripe.subscriptions.retrieve(subscription.stripe_sub_id);
    expect(sub.default_payment_method).toBe(card.payment_method_id);
    // One setting (issue 21): the card that pays the subscription is the account's default card too.
    const cards = (await list(t, token)).data.data as { id: number; is_default: boolean }[];
    expect(cards.filter((c) => c.is_default).map((c) => c.id)).toEqual([card.id]);

    const byOurId = await t.post("/api/stripe/update-payment-method", {
      token,
      json: { subscriptionId: String(subscription.id), paymentMethodId: "pm_unknown" },
    });
    expect(byOurId.status).toBe(404);
    expect(byOurId.body.success).toBe(false);
    expect(byOurId.body.errors.message).toBe("This payment method was not found.");
    const stranger = await customer(t, "cards-sub-stranger@example.com");
    const foreign = await t.post("/api/stripe/update-payment-method", {
      token: stranger.token,
      json: { subscriptionId: subscription.stripe_sub_id, paymentMethodId: card.payment_method_id },
    });
    expect(foreign.status).toBe(404);
  });

  it("set-default makes the card pay the subscription's renewals, and a plan bought with another card makes that one the default", async () => {
    const { token, email, userId } = await customer(t, "cards-renewals@example.com");
    const first = await addCard(t, token);
    expect(first.is_default).toBe(true);
    // The plan is bought with a new card: Stripe makes it the subscription's card, so it becomes the default.
    const paid = await t.post("/api/payments/card", {
      token,
      json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email },
    });
    expect(paid.status, paid.text).toBe(200);
    const stripeSubId = (paid.body.data.subscription as { stripe_sub_id: string }).stripe_sub_id;
    const stripe = t.api.payments.gateway.stripe;
    const payer = (await stripe.subscriptions.retrieve(stripeSubId)).default_payment_method as string;
    expect(payer).not.toBe(first.payment_method_id);
    const defaults = () =>
      t.db.selectFrom("payment_methods").select("payment_method_id").where("user_id", "=", userId).where("is_default", "=", 1).execute();
    expect(await defaults()).toEqual([{ payment_method_id: payer }]);

    // 'Set Default' on the first card: it pays the renewals at Stripe (the subscription and the customer) and here.
    const moved = await t.request("PUT", `/api/payment-methods/${first.id}/set-default`, { token });
    expect(moved.status, moved.text).toBe(200);
    expect((await stripe.subscriptions.retrieve(stripeSubId)).default_payment_method).toBe(first.payment_method_id);
    const user = await t.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    const stripeCustomer = await stripe.customers.retrieve(user.stripe_customer_id!);
    expect(!stripeCustomer.deleted && stripeCustomer.invoice_settings.default_payment_method).toBe(first.payment_method_id);
    expect(await defaults()).toEqual([{ payment_method_id: first.payment_method_id }]);
  });

  it("saves the card of a hosted setup page (no JavaScript), once, and only for its owner", async () => {
    const { token } = await customer(t, "cards-hosted@example.com");
    const start = await t.post("/api/payment-methods/setup-session", { token });
    expect(start.status, start.text).toBe(200);
    const { id, url } = start.body.data as { id: string; url: string };
    const early = await t.post("/api/payment-methods/setup-session/complete", { token, json: { sessionId: id } });
    expect(early.status).toBe(409);

    const page = new URL(url);
    const submit = await fetch(`${t.baseUrl}${page.pathname}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        card_number: GOOD,
        card_expiry: `12 / ${(new Date().getUTCFullYear() + 2) % 100}`,
        card_cvc: "123",
        billing_name: "Hosted Holder",
        billing_postal_code: "75001",
      }),
    });
    expect(submit.status, await submit.clone().text()).toBe(303);
    const back = new URL(submit.headers.get("location")!);
    expect(back.pathname).toBe("/billing");
    expect(back.searchParams.get("tab")).toBe("payment-method");
    expect(back.searchParams.get("setup_session")).toBe(id);

    const stranger = await customer(t, "cards-hosted-stranger@example.com");
    expect((await t.post("/api/payment-methods/setup-session/complete", { token: stranger.token, json: { sessionId: id } })).status).toBe(404);
    const done = await t.post("/api/payment-methods/setup-session/complete", { token, json: { sessionId: id } });
    expect(done.status, done.text).toBe(200);
    expect(done.body.message).toBe("New Payment Method Added Successfully.");
    expect(done.body.data).toMatchObject({ is_default: true, billing_name: "Hosted Holder", card_number: "**** **** **** 4242" });
    const again = await t.post("/api/payment-methods/setup-session/complete", { token, json: { sessionId: id } });
    expect(again.body.data.id).toBe(done.body.data.id);
    expect((await list(t, token)).data.pagination.total).toBe(1);
  });
});
