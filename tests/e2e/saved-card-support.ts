import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { hasJavaScript } from "../support/e2e";
import { expect } from "../support/fixtures";

// Saving a card on Billing's 'Payment Method' tab (/billing?tab=payment-method), for the specs that need one.

const year = (new Date().getUTCFullYear() + 3) % 100;

/** Adds the 4242 card through the UI: inline fields with JavaScript, the hosted setup page without. */
export async function addCard(page: Page, testInfo: TestInfo, name = "Pat Payer", number = GOOD_CARD) {
  if (hasJavaScript(testInfo)) {
    await page.getByLabel("Card number").fill(number);
    await page.getByLabel("Expiry (MM / YY)").first().fill(`12 / ${year}`);
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").last().fill(name);
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: "Add card", exact: true }).click();
  } else {
    await page.getByRole("button", { name: "Add card", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Secure payment (sandbox)" })).toBeVisible();
    await page.getByLabel("Card number").fill(number);
    await page.getByLabel("Expiry (MM / YY)").fill(`12 / ${year}`);
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill(name);
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: /^Save card/ }).click();
  }
  await expect(page.getByText("New Payment Method Added Successfully.")).toBeVisible();
}
