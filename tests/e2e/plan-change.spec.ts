import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { fillSandboxCardAndPay, hasJavaScript, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// Changing plan instead of buying twice (issue 20, docs/decisions/028), with and without JavaScript.

const card = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true });

async function subscribeMonthly(page: Page, testInfo: TestInfo, planId = 1) {
  await open(page, `/subscription/payment/${planId}`, testInfo);
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await fillSandboxCardAndPay(page, GOOD_CARD);
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}

test("a subscriber sees 'Current Plan', changes to a longer plan now and to a shorter one at renewal", async ({ page, login }, testInfo) => {
  await login();
  await subscribeMonthly(page, testInfo);

  await open(page, "/pricing?tab=monthly", testInfo);
  await expect(card(page, "1 Month").getByRole("button", { name: "Current Plan" })).toBeDisabled();
  await card(page, "3 Months").getByRole("link", { name: "Change to this plan" }).click();

  // A longer term: what is paid now, 'Change plan', then the success state.
  await expect(page.getByRole("heading", { name: "Change from 1 Month to 3 Months" })).toBeVisible();
  const amount = page.locator(".plan-change__amount");
  await expect(amount).toHaveText(/^\$\d+\.\d{2}$/);
  await expect(page.getByText(/You pay \$\d+\.\d{2} now/)).toBeVisible();
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your plan was changed to 3 Months." })).toBeVisible();

  await open(page, "/pricing?tab=monthly", testInfo);
  await expect(card(page, "3 Months").getByRole("button", { name: "Current Plan" })).toBeDisabled();
  await expect(card(page, "1 Month").getByRole("link", { name: "Change to this plan" })).toBeVisible();

  // A shorter term: takes effect at the renewal, nothing charged now; the pending change can be dropped.
  await card(page, "1 Month").getByRole("link", { name: "Change to this plan" }).click();
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Month" })).toBeVisible();
  await expect(page.getByText(/Your plan changes to 1 Month on \d{2} \w+, \d{4}, at your next renewal\. Nothing is charged now/)).toBeVisible();
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Your plan changes to 1 Month on \d{2} \w+, \d{4}\./ })).toBeVisible();
  await open(page, "/pricing?tab=monthly", testInfo);
  await expect(card(page, "3 Months").getByText(/^Changes to 1 Month on \d{2} \w+, \d{4}$/)).toBeVisible();
  await open(page, "/subscription/payment/1", testInfo);
  await page.getByRole("button", { name: "Keep current plan" }).click();
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Month" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Keep current plan" })).toHaveCount(0);
});

test("the 5-year plan says, before paying, that it ends the current plan's auto-renewal", { tag: "@once" }, async ({ page, login }, testInfo) => {
  await login();
  await subscribeMonthly(page, testInfo);
  await open(page, "/subscription/payment/7", testInfo);
  await expect(page.getByText(/turns off the auto-renewal of your 1 Month plan.*Your 5-year access starts today\./)).toBeVisible();
});

test("the billing page shows a pending change to a shorter plan, and 'Keep current plan' there drops it", async ({ page, login }, testInfo) => {
  await login();
  await subscribeMonthly(page, testInfo, 2);
  await open(page, "/subscription/payment/1", testInfo);
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Month" })).toBeVisible();
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Your plan changes to 1 Month on \d{2} \w+, \d{4}\./ })).toBeVisible();

  await open(page, "/billing", testInfo);
  const subscription = page.getByRole("region", { name: "Subscription" });
  const sentence = subscription.getByText(/^Your plan changes to 1 Month on \d{2} \w+, \d{4}\.$/);
  await expect(sentence).toBeVisible();
  await subscription.getByRole("button", { name: "Keep current plan" }).click();
  await expect(page.getByText("Your current plan stays. The pending change was cancelled.")).toBeVisible();
  await expect(sentence).toHaveCount(0);
  await expect(subscription.getByRole("button", { name: "Keep current plan" })).toHaveCount(0);
});
