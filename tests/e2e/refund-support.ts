import { expect, type Page, type TestInfo } from "@playwright/test";
import { createUser, hasJavaScript, signIn } from "./support";

// What the refund and clock specs share (a spec file may not import another spec file).

/** A new account that bought the 1-month plan with the sandbox's good card (hosted page without JavaScript); a far expiry, because the clock specs move the business time by years. */
export async function buyMonthByCard(page: Page, testInfo: TestInfo) {
  const user = await createUser();
  await signIn(page, testInfo, user, `/login?oldurl=${encodeURIComponent("/subscription/payment/1")}`);
  await payWith4242(page, testInfo);
  return user;
}

/** Pays on the checkout with the sandbox's good card (through the hosted page without JavaScript); a far expiry, because the clock specs move the business time by years. */
export async function payWith4242(page: Page, testInfo: TestInfo) {
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry (MM / YY)").fill("12 / 49");
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").fill("Pat Payer");
  await page.getByLabel("Postal code").fill("10115");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}
