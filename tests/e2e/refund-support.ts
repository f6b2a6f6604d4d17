import { expect, type Page, type TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { fillSandboxCardAndPay, hasJavaScript, open } from "../support/e2e";
import type { Login } from "../support/fixtures";

// What the refund and clock specs share (a spec file may not import another spec file).

/** A new account, signed in by `login`, that bought the 1-month plan with a good card (hosted page without JavaScript); a far expiry, because the clock specs move the business time by years. */
export async function buyMonthByCard(page: Page, testInfo: TestInfo, login: Login, card = GOOD_CARD) {
  const user = await login();
  await open(page, "/subscription/payment/1", testInfo);
  await payWith4242(page, testInfo, card);
  return user;
}

/** Pays on the checkout with the sandbox's good card, or another (through the hosted page without JavaScript); a far expiry, because the clock specs move the business time by years. */
export async function payWith4242(page: Page, testInfo: TestInfo, card = GOOD_CARD) {
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await fillSandboxCardAndPay(page, card);
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}
