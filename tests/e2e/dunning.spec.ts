import AxeBuilder from "@axe-core/playwright";
import type { Page, TestInfo } from "@playwright/test";
import { DECLINED_CARD, GOOD_CARD, THREE_DS_ALWAYS_CARD } from "../support/cards";
import { advanceServerClock } from "../support/clock";
import { fillSandboxCardAndPay, hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, type Login, test } from "../support/fixtures";
import { buyMonthByCard } from "./refund-support";

// Failed renewals (issue 20, docs/decisions/027): the monthly plan's renewal is declined, the account
// stays Premium with 'Your last payment failed.' on the home and billing page, and another saved card
// pays it from the pay page. The test clock moves the whole server's time, so this file runs on the clock
// specs' server, in its own projects after them (playwright.config.ts), one test at a time.
test.describe.configure({ mode: "serial" });

/** No axe violation on the page as it is (axe is a script: with JavaScript on only; the page check (scripts/page-check.ts) covers the rest). */
async function expectAccessible(page: Page, testInfo: TestInfo) {
  if (!hasJavaScript(testInfo)) return;
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** Adds a card on the billing page's 'Payment Method' tab: inline fields with JavaScript, the hosted setup page without. */
async function addCard(page: Page, testInfo: TestInfo, card: string) {
  await open(page, "/billing?tab=payment-method", testInfo);
  if (hasJavaScript(testInfo)) {
    await page.getByLabel("Card number").fill(card);
    await page.getByLabel("Expiry (MM / YY)").first().fill("12 / 49");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").last().fill("Pat Payer");
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: "Add card", exact: true }).click();
  } else {
    await page.getByRole("button", { name: "Add card", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Secure payment (sandbox)" })).toBeVisible();
    await page.getByLabel("Card number").fill(card);
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 49");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill("Pat Payer");
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: /^Save card/ }).click();
  }
  await expect(page.getByText("New Payment Method Added Successfully.")).toBeVisible();
}

/** 'Set Default' on a saved card: it pays the subscription's renewals from then on (and says so). */
async function payRenewalsWith(page: Page, card: string) {
  await page.getByRole("listitem", { name: card }).getByRole("button", { name: "Set Default" }).click();
  await expect(page.getByText("Payment Method Set as Defaut Successfully.")).toBeVisible();
  await expect(page.getByRole("listitem", { name: card }).getByText("Pays your renewals", { exact: true })).toBeVisible();
}

test("a declined renewal shows 'Your last payment failed.' while Premium; another saved card pays it and the banner goes", async ({ page, login }, testInfo) => {
  const user = await buyMonthByCard(page, testInfo, login);
  // The card that pays the subscription becomes one that the bank declines.
  await addCard(page, testInfo, DECLINED_CARD);
  await payRenewalsWith(page, "Visa ending 0002");

  await advanceServerClock(page, 32);

  await open(page, "/", testInfo);
  const banner = page.getByRole("alert").filter({ hasText: "Your last payment failed." });
  await expect(banner).toBeVisible();
  await expect(banner.getByText("Your card was declined.")).toBeVisible();
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
  await expectAccessible(page, testInfo);

  // Another plan is neither sold beside it nor changed to before the unpaid renewal is paid.
  await open(page, "/subscription/payment/5", testInfo);
  await expect(page.getByRole("status").filter({ hasText: "Your last payment failed. Pay it before you change your plan." })).toBeVisible();
  await expect(page.getByRole("button", { name: "Change plan" })).toHaveCount(0);

  await open(page, "/billing", testInfo);
  await expect(page.getByRole("heading", { name: "Your last payment failed." })).toBeVisible();
  await expect(page.getByText("Payment failed", { exact: true }).first()).toBeVisible();
  // Auto-renewal can still be turned off while past due (the retries stop; docs/decisions/027).
  await expect(page.getByRole("button", { name: "Cancel auto-renewal" })).toBeVisible();

  await page.getByRole("link", { name: "Pay now" }).click();
  await expect(page).toHaveURL(/\/billing\/pay$/);
  await expectAccessible(page, testInfo);
  // The card that failed is refused again: the bank's message next to the choice of card.
  await page.getByRole("radio", { name: /Visa ending in 0002/ }).check();
  await page.getByRole("button", { name: "Pay now" }).click();
  await expect(page.locator(".pay-page .field-error")).toHaveText("Your card was declined.");
  await page.getByRole("radio", { name: /Visa ending in 4242/ }).check();
  await page.getByRole("button", { name: "Pay now" }).click();
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByText("Payment successful.")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your last payment failed." })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Cancel auto-renewal" })).toBeVisible();

  await open(page, "/", testInfo);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
  await expect(page.getByText("Your last payment failed.")).toHaveCount(0);
  const row = await withDatabase((db) =>
    db
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select(["subscriptions.past_due_since", "subscriptions.grace_until"])
      .where("users.email", "=", user.email)
      .executeTakeFirstOrThrow(),
  );
  expect(row).toEqual({ past_due_since: null, grace_until: null });
});

/** A new account on the monthly plan whose renewal (32 days on) the bank declines: its card became the declining one. */
async function renewalDeclined(page: Page, testInfo: TestInfo, login: Login) {
  const user = await buyMonthByCard(page, testInfo, login);
  await addCard(page, testInfo, DECLINED_CARD);
  await payRenewalsWith(page, "Visa ending 0002");
  await advanceServerClock(page, 32);
  return user;
}

/**
 * On the sandbox's hosted invoice page, once paid: 'Paid', and its link back to the portal lands on the billing page without
 * the banner; the renewal's row is Paid now, its failed attempts counted in it (docs/decisions/050).
 */
async function backFromPaidInvoice(page: Page) {
  await expect(page.locator(".status")).toHaveText("Paid");
  await page.getByRole("link", { name: "Return to the merchant's site" }).click();
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your last payment failed." })).toHaveCount(0);
  await expect(page.getByText("Payment failed", { exact: true })).toHaveCount(0);
  await expect(page.getByRole("cell", { name: /^Paid on \d{2} \w+, \d{4} — retried \d+ times?$/ })).toBeVisible();
}

test("'Pay with a new card' pays the open invoice on the hosted invoice page with 4242; back in the portal the banner is gone", async ({ page, login }, testInfo) => {
  await renewalDeclined(page, testInfo, login);
  await open(page, "/billing", testInfo);
  await page.getByRole("link", { name: "Pay now" }).click();
  await expect(page).toHaveURL(/\/billing\/pay$/);
  await page.getByRole("button", { name: "Pay with a new card" }).click();
  await expect(page).toHaveURL(/\/dev\/stripe\/invoices\/in_/);
  await expect(page.locator(".status")).toHaveText("Open");
  await fillSandboxCardAndPay(page, GOOD_CARD);
  await backFromPaidInvoice(page);
  await open(page, "/", testInfo);
  await expect(page.getByText("Your last payment failed.")).toHaveCount(0);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
});

test("a saved 3184 card whose renewal needed authentication pays on the hosted invoice page after 'Complete authentication'", async ({ page, login }, testInfo) => {
  await login();
  // Bought with the card that asks for authentication every time (the challenge completed), so its renewal asks again.
  await open(page, "/subscription/payment/1", testInfo);
  if (hasJavaScript(testInfo)) {
    await page.getByLabel("Card number").fill(THREE_DS_ALWAYS_CARD);
    await page.getByLabel("Expiry (MM / YY)").first().fill("12 / 49");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").last().fill("Pat Payer");
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm the payment with your bank" });
    await dialog.locator("iframe").contentFrame().getByRole("button", { name: "Complete authentication" }).click();
  } else {
    await page.getByRole("button", { name: "Continue to secure payment page" }).click();
    await fillSandboxCardAndPay(page, THREE_DS_ALWAYS_CARD);
    await page.getByRole("button", { name: "Complete authentication" }).click();
  }
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
  await advanceServerClock(page, 32);

  await open(page, "/billing", testInfo);
  const banner = page.getByRole("alert").filter({ hasText: "Your last payment failed." });
  await expect(banner.getByText("Your bank asks you to authenticate this payment.")).toBeVisible();
  await page.getByRole("link", { name: "Pay now" }).click();
  await expect(page).toHaveURL(/\/billing\/pay$/);
  await page.getByRole("radio", { name: /Visa ending in 3184/ }).check();
  await page.getByRole("button", { name: "Pay now" }).click();
  // The bank wants the customer: the hosted invoice page, whose challenge pays the invoice.
  await expect(page).toHaveURL(/\/dev\/stripe\/invoices\/in_/);
  await fillSandboxCardAndPay(page, THREE_DS_ALWAYS_CARD);
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await backFromPaidInvoice(page);
});

test("auto-renewal turned off while past due: the billing page shows OFF and the banner stays", async ({ page, login }, testInfo) => {
  await renewalDeclined(page, testInfo, login);
  await open(page, "/billing", testInfo);
  await page.getByRole("button", { name: "Cancel auto-renewal" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel auto-renewal?" });
  await expect(dialog.getByText(/will not renew and ends on/)).toBeVisible();
  await expectAccessible(page, testInfo);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("Auto-renewal updated successfully")).toBeVisible();
  await expect(page.getByText("OFF", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Active auto-renewal" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your last payment failed." })).toBeVisible();
});


test("a renewal retried 4 times and never paid is one history row, and the plan that ended says so with 'See plans'", async ({ page, login }, testInfo) => {
  await renewalDeclined(page, testInfo, login);
  // Stripe's retries 1, 3, 5 and 7 days after the renewal, then past the grace period (14 days).
  for (const days of [1, 2, 2, 2, 8]) await advanceServerClock(page, days);

  await open(page, "/billing", testInfo);
  const history = page.getByRole("region", { name: "Payment history table" });
  // One row for the renewal and its four retries (docs/decisions/050), the first payment beside it on page 1.
  await expect(history.getByRole("row").filter({ hasText: "Payment failed" })).toHaveCount(1);
  await expect(history.getByRole("cell", { name: /^Payment failed — retried 4 times, last on \d{2} \w+, \d{4}$/ })).toBeVisible();
  await expect(history.getByRole("cell", { name: "Paid", exact: true })).toHaveCount(1);
  await expect(page.getByRole("navigation", { name: "Payment history pages" })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Your last payment failed." })).toHaveCount(0);
  // The plan has ended: when, and the way back, instead of 'You have no active subscription.'.
  await expect(page.getByText(/^Your plan ended on \d{2} \w+, \d{4}\./)).toBeVisible();
  await expect(page.getByText("You have no active subscription.")).toHaveCount(0);
  await expectAccessible(page, testInfo);

  await open(page, "/", testInfo);
  const status = page.getByRole("article", { name: "Subscription" });
  await expect(status.getByText("Free", { exact: true })).toBeVisible();
  await expect(status.getByText(/^Your plan ended on \d{2} \w+, \d{4}\./)).toBeVisible();
  await status.getByRole("link", { name: "See plans" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
});
