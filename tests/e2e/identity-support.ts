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

/**
 * A page of its own, in the test's context, for a desktop hand-off (Playwright closes it when the test ends).
 * The hand-off ends on a page that sends the browser to the vpnapp:// scheme, and the worker's reused page
 * (decision 052) then swallowed the next test's first form post or click: every failure of two CI-like runs on a
 * slow machine (a password sign-in staying on /login with no error, a sign-in code never sent, 'Set up' not
 * opening) came in the test after one that had ended on the hand-off page in the same page.
 */
export function handOffPage(page: Page): Promise<Page> {
  return page.context().newPage();
}
