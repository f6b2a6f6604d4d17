import AxeBuilder from "@axe-core/playwright";
import type { Page, TestInfo } from "@playwright/test";
import { DECLINED_CARD } from "../support/cards";
import { advanceServerClock } from "../support/clock";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { buyMonthByCard } from "./refund-support";

// Failed renewals (issue 20, docs/decisions/027): the monthly plan's renewal is declined, the account
// stays Premium with 'Your last payment failed.' on the home and billing page, and another saved card
// pays it from the pay page. The test clock moves the whole server's time, so this file runs in its own
// projects after the clock specs (playwright.config.ts), one test at a time.
test.describe.configure({ mode: "serial" });

/** No axe violation on the page as it is (axe is a script: with JavaScript on only; a11y.spec covers the rest). */
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

test("a declined renewal shows 'Your last payment failed.' while Premium; another saved card pays it and the banner goes", async ({ page, login }, testInfo) => {
  const user = await buyMonthByCard(page, testInfo, login);
  // The card that pays the subscription becomes one that the bank declines.
  await addCard(page, testInfo, DECLINED_CARD);
  const declining = await page.getByLabel("Card for the subscription").locator("option", { hasText: "0002" }).getAttribute("value");
  await page.getByLabel("Card for the subscription").selectOption(declining!);
  await page.getByRole("button", { name: "Update payment method" }).click();
  await expect(page.getByText("Payment method updated successfully")).toBeVisible();

  await advanceServerClock(page, 32);

  await open(page, "/", testInfo);
  const banner = page.getByRole("alert").filter({ hasText: "Your last payment failed." });
  await expect(banner).toBeVisible();
  await expect(banner.getByText("Your card was declined.")).toBeVisible();
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
  await expectAccessible(page, testInfo);

  await open(page, "/billing", testInfo);
  await expect(page.getByRole("heading", { name: "Your last payment failed." })).toBeVisible();
  await expect(page.getByText("Payment failed", { exact: true }).first()).toBeVisible();
  // Auto-renewal waits for the payment: no toggle while past due.
  await expect(page.getByRole("button", { name: "Cancel auto-renewal" })).toHaveCount(0);

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
