import { expect, type Page, type TestInfo } from "@playwright/test";
import { createUser, hasJavaScript, signIn } from "./support";

// What the refund and clock specs share (a spec file may not import another spec file).

export const GOOD_CARD = "4242 4242 4242 4242";
/** The sandbox's other card that succeeds: the money-back guarantee is once per card, so a second refund in one run needs it. */
export const OTHER_GOOD_CARD = "4000 0566 5566 5556";

/** A new account that bought the 1-month plan with a good card (hosted page without JavaScript); a far expiry, because the clock specs move the business time by years. */
export async function buyMonthByCard(page: Page, testInfo: TestInfo, card = GOOD_CARD) {
  const user = await createUser();
  await signIn(page, testInfo, user, `/login?oldurl=${encodeURIComponent("/subscription/payment/1")}`);
  await payWith4242(page, testInfo, card);
  return user;
}

/** Pays on the checkout with the sandbox's good card, or another (through the hosted page without JavaScript); a far expiry, because the clock specs move the business time by years. */
export async function payWith4242(page: Page, testInfo: TestInfo, card = GOOD_CARD) {
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiry (MM / YY)").fill("12 / 49");
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").fill("Pat Payer");
  await page.getByLabel("Postal code").fill("10115");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}
