import type { Page, TestInfo } from "@playwright/test";
import { hasJavaScript } from "../support/e2e";
import { expect } from "../support/fixtures";

/**
 * Signs in at the identity sandbox's Google or Apple page as `person`. Apple answers by form_post: a page
 * that posts itself with JavaScript, or by its own Continue button without, pressed once the sign-in page
 * has gone (pressed before, it was the sign-in page's Continue a second time, and the sign-in stalled).
 */
export async function approveAtProvider(page: Page, testInfo: TestInfo, provider: "Google" | "Apple", person: { email: string; name: string }) {
  await page.waitForURL(new RegExp(`/dev/oidc/${provider.toLowerCase()}/`));
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Name").fill(person.name);
  await page.getByRole("button", { name: "Continue" }).click();
  if (provider === "Apple" && !hasJavaScript(testInfo)) {
    await expect(page.getByLabel("Email")).toHaveCount(0);
    await page.getByRole("button", { name: "Continue" }).click();
  }
}
