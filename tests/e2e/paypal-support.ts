import { expect, type Page, type TestInfo } from "@playwright/test";
import { open, withDatabase } from "../support/e2e";
import type { Login } from "../support/fixtures";

// What the PayPal specs share (a spec file may not import another spec file): the checkout's PayPal
// panel, the stand-in's approval page (sandbox mode, /dev/paypal/...; api/sandboxes/paypal/README.md),
// and what the database holds afterwards.

/** Opens the checkout's 'PayPal' panel and presses 'Continue to PayPal': the browser is on PayPal's (the stand-in's) approval page. */
export async function continueToPayPal(page: Page) {
  await page.getByText("PayPal", { exact: true }).click();
  await page.getByRole("button", { name: "Continue to PayPal" }).click();
  await expect(page).toHaveURL(/\/dev\/paypal\//);
  await expect(page.getByRole("heading", { name: /PayPal/ }).first()).toBeVisible();
}

/** On the approval page: picks how the sandbox buyer's PayPal pays (optional), then 'Approve' or 'Cancel'. */
export async function answerAtPayPal(page: Page, button: "Approve" | "Cancel", funding?: string) {
  if (funding) await page.getByLabel(funding).check();
  await page.getByRole("button", { name: button, exact: true }).click();
}

/** Buys `planId` with PayPal as the signed-in page's account, and waits for 'Payment Successful!'. */
export async function buyWithPayPal(page: Page, testInfo: TestInfo, planId: number) {
  await open(page, `/subscription/payment/${planId}`, testInfo);
  await continueToPayPal(page);
  await answerAtPayPal(page, "Approve");
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/subscription/payment/${planId}$`));
}

/** A new account, signed in by `login`, that bought `planId` with PayPal. */
export async function newPayPalCustomer(page: Page, testInfo: TestInfo, login: Login, planId = 1) {
  const user = await login();
  await buyWithPayPal(page, testInfo, planId);
  return user;
}

/** The account's transactions, oldest first: status, plan, gateway. */
export function transactionsOf(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .select(["transactions.status", "transactions.plan_id", "transactions.payment_gateway"])
      .where("users.email", "=", email)
      .orderBy("transactions.id")
      .execute(),
  );
}

/** The account's subscriptions: plan, billing type, gateway, renewal state. */
export function subscriptionsOf(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select(["subscriptions.plan_id", "subscriptions.billing_type", "subscriptions.subscription_by", "subscriptions.subs_status"])
      .where("users.email", "=", email)
      .orderBy("subscriptions.id")
      .execute(),
  );
}
