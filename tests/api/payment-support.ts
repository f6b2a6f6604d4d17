import { expect } from "vitest";
import { SANDBOX_PUBLISHABLE_KEY } from "../../api/payments/stripe-sandbox";
import type { TestApi } from "./harness";

// What the payment suites share: the DESIGN §2 test cards and a signed-in customer.

export const GOOD = "4242 4242 4242 4242";
export const DECLINED = "4000 0000 0000 0002";
export const NO_FUNDS = "4000 0000 0000 9995";

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
