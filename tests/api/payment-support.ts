import { expect } from "vitest";
import { SANDBOX_PUBLISHABLE_KEY } from "../../api/sandboxes/stripe";
import type { TestApi } from "./harness";
import { GOOD_CARD } from "../support/cards";

// What the payment suites share: the test cards (tests/support/cards.ts, under the short names these suites
// use) and a signed-in customer.

export {
  DECLINED_CARD as DECLINED,
  GOOD_CARD as GOOD,
  NO_FUNDS_CARD as NO_FUNDS,
  OTHER_GOOD_CARD as GOOD_OTHER,
} from "../support/cards";

let keys = 0;
/** A fresh idempotency key, as the checkout page renders one per payment form. */
export const newKey = () => `test-key-${Date.now()}-${++keys}-abcdefgh`;

/** What the browser's card entry does: the card goes to the sandbox's tokenizer, which answers a payment method. */
export async function paymentMethod(t: TestApi, number: string): Promise<string> {
  const res = await t.post("/dev/stripe/v1/payment_methods", {
    form: {
      type: "card",
      "card[number]": number,
      "card[exp_month]": "12",
      "card[exp_year]": String(new Date().getUTCFullYear() + 3),
      "card[cvc]": "123",
      "billing_details[name]": "Pat Payer",
      "billing_details[address][postal_code]": "10115",
    },
    headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}` },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

/** A new account, signed in. */
export async function customer(t: TestApi, email: string) {
  const userId = await t.createUser({ email, password: "pay-password" });
  const token = await t.login(email, "pay-password");
  return { userId, token, email };
}

/** The crypto invoice a checkout asks for, per plan. */
export const TWO_YEARS_BY_CRYPTO = { productId: "vpn_2_years", planId: 6, amount: "107.76" };
export const ONE_MONTH_BY_CRYPTO = { productId: "vpn_1_month", planId: 1, amount: "9.99" };

/** Buys a plan with crypto and presses 'Mark as paid' on the crypto sandbox's invoice page. */
export async function buyByCrypto(t: TestApi, who: { token: string; email: string }, plan: { productId: string; planId: number; amount: string }) {
  const created = await t.post("/api/payments/crypto/invoice", {
    token: who.token,
    json: { ...plan, currency: "USD", email: who.email },
  });
  expect(created.status, created.text).toBe(200);
  await markCryptoPaid(t, created.body.data.invoiceUrl as string);
}

/** Presses 'Mark as paid' on the crypto sandbox's invoice page (the buyer's wallet paying it). */
export async function markCryptoPaid(t: TestApi, invoiceUrl: string) {
  const path = new URL(invoiceUrl).pathname;
  const page = await t.get(path);
  const form = [...page.text.matchAll(/<form[^>]*>([\s\S]*?)<\/form>/g)].find((f) => />\s*Mark as paid\s*</.test(f[1]!));
  if (!form) throw new Error("no 'Mark as paid' button");
  const fields = new URLSearchParams();
  for (const input of form[1]!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    if (name) fields.set(name, /value="([^"]*)"/.exec(input[0])?.[1] ?? "");
  }
  const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]*)"[^>]*>\s*Mark as paid\s*<\/button>/.exec(form[1]!);
  if (button) fields.set(button[1]!, button[2]!);
  const res = await fetch(`${t.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fields,
  });
  expect(res.status).toBe(303);
}

/** Presses Approve on the PayPal stand-in's approval page (a plain form post); answers where PayPal sends the browser. */
export async function approveAtPayPal(t: TestApi, approveUrl: string): Promise<URL> {
  const url = new URL(approveUrl);
  const res = await fetch(`${t.baseUrl}${url.pathname}${url.search}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action: "approve", funding: "balance" }),
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location")!);
}

/** The account's invoices with their payment and every tax column (issue 35), oldest first. */
export async function invoicesOf(t: TestApi, userId: number) {
  return t.db
    .selectFrom("invoices")
    .innerJoin("transactions", "transactions.id", "invoices.transaction_id")
    .select([
      "transactions.id as transaction_id",
      "transactions.amount_cents as charged",
      "transactions.payment_gateway",
      "transactions.wallet_payment_type",
      "transactions.gateway_ref",
      "invoices.net_cents",
      "invoices.vat_rate",
      "invoices.vat_cents",
      "invoices.amount_cents",
      "invoices.tax_country",
      "invoices.reverse_charge",
      "invoices.card_country",
      "invoices.country_mismatch",
      "invoices.buyer_country",
    ])
    .where("invoices.user_id", "=", userId)
    .orderBy("invoices.id")
    .execute();
}

/** Pays on the Stripe stand-in's hosted Checkout page with a good card (a plain form post); answers the session id it returns with. */
export async function payOnHostedPage(t: TestApi, sessionUrl: string, billingName: string): Promise<string> {
  const url = new URL(sessionUrl);
  const paid = await fetch(`${t.baseUrl}${url.pathname}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      card_number: GOOD_CARD,
      card_expiry: `12 / ${(new Date().getUTCFullYear() + 3) % 100}`,
      card_cvc: "123",
      billing_name: billingName,
      billing_postal_code: "10115",
    }),
  });
  expect(paid.status).toBe(303);
  return new URL(paid.headers.get("location")!).searchParams.get("session_id")!;
}
