import type { Page, TestInfo } from "@playwright/test";
import { createUser, enterCode, latestCode, latestMail, open } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { expect, test } from "../support/fixtures";
import { payWith4242 } from "./refund-support";

// Cancel without signing in (issue 22, §312k BGB; docs/decisions/038): the footer's 'Cancel subscription' on
// every page, then /cancel: email, the emailed code, the subscription with 'Cancel auto-renewal', then
// 'Auto-renewal is off' and its email. Without JavaScript and with it.

const LONG_DATE = /\d{2} [A-Z][a-z]+, \d{4}/;

function footerLink(page: Page) {
  return page.getByRole("navigation", { name: "Footer" }).getByRole("link", { name: "Cancel subscription" });
}

async function sendCodeTo(page: Page, email: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send code" }).click();
  await expect(page.getByText("Enter the code we've sent to")).toBeVisible();
}

async function followFooterLink(page: Page, testInfo: TestInfo, from: string) {
  await open(page, from, testInfo);
  await footerLink(page).click();
  await expect(page).toHaveURL(/\/cancel$/);
  await expect(page.getByRole("heading", { level: 1, name: "Cancel your subscription" })).toBeVisible();
}

test.describe("cancel without signing in", () => {
  test("'Cancel subscription' is in the footer of the public, sign-in, not-found and signed-in pages", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await followFooterLink(page, testInfo, "/pricing");
    await open(page, "/login", testInfo);
    await expect(footerLink(page)).toHaveAttribute("href", "/cancel");
    await open(page, "/no-such-page", testInfo);
    await expect(footerLink(page)).toHaveAttribute("href", "/cancel");

    // Signed in, it leads to Billing's auto-renewal control (issue 33), and so does /cancel itself.
    await login();
    await open(page, "/billing", testInfo);
    await expect(footerLink(page)).toHaveAttribute("href", "/billing#auto-renewal");
    await footerLink(page).click();
    await expect(page).toHaveURL(/\/billing#auto-renewal$/);
    await expect(page.getByRole("region", { name: "Subscription" })).toBeVisible();
    await open(page, "/cancel", testInfo);
    await expect(page).toHaveURL(/\/billing#auto-renewal$/);
    await open(page, "/no-such-page", testInfo);
    await expect(footerLink(page)).toHaveAttribute("href", "/billing#auto-renewal");
  });

  test("a card subscription: email, code, 'Cancel auto-renewal', the email, and the billing page shows it off", async ({ page, request, login }, testInfo) => {
    test.slow();
    const user = await login();
    await open(page, "/subscription/payment/1", testInfo);
    await payWith4242(page, testInfo);
    // Signed out from here: the flow needs no session.
    await page.context().clearCookies();

    await followFooterLink(page, testInfo, "/pricing");
    await sendCodeTo(page, user.email);
    await enterCode(page, await latestCode(request, user.email, /cancel your subscription/i));
    await page.getByRole("button", { name: "Continue", exact: true }).click();

    await expect(page.getByRole("heading", { name: "Your subscription", exact: true })).toBeVisible();
    await expect(page.getByText(user.email)).toBeVisible();
    await expect(page.getByText("Plan: 1 Month")).toBeVisible();
    await expect(page.getByText(new RegExp(`^Renews on ${LONG_DATE.source}$`))).toBeVisible();
    await page.getByRole("button", { name: "Cancel auto-renewal" }).click();

    await expect(page.getByRole("heading", { name: "Auto-renewal is off" })).toBeVisible();
    await expect(page.getByText(new RegExp(`Your 1 Month plan will not renew and will not be charged again\\. It stays active until ${LONG_DATE.source}\\.`))).toBeVisible();
    await expect(page.getByText(new RegExp(`Turned off on ${LONG_DATE.source} at \\d{2}:\\d{2} UTC\\.`))).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel auto-renewal" })).toHaveCount(0);
    // The last step leads home, not back to the start (issue 33).
    await expect(page.getByRole("link", { name: "Back to the home page" })).toHaveAttribute("href", "/");
    await expect(page.getByRole("button", { name: "Start again" })).toHaveCount(0);

    const confirmation = await latestMail(request, user.email, /^Auto-renewal is off$/);
    expect(confirmation.text).toMatch(/You turned off auto-renewal of your 1 Month plan: \d{2} \w+, \d{4} at \d{2}:\d{2} UTC\./);
    expect(confirmation.text).toMatch(/Your plan ends on \d{2} \w+, \d{4} and will not be charged again\./);

    // Signed in again, the billing page says it is off.
    await login(user);
    await open(page, "/billing", testInfo);
    const subscription = page.getByRole("region", { name: "Subscription" });
    await expect(subscription.getByText(new RegExp(`Auto-renewal is off: your plan ends on ${LONG_DATE.source}\\.`))).toBeVisible();
    await expect(subscription.getByRole("button", { name: "Active auto-renewal" })).toBeVisible();
  });

  test("a wrong code is refused next to the field, and nothing of the account is shown", async ({ page, request }, testInfo) => {
    const user = await createUser();
    await open(page, "/cancel", testInfo);
    await sendCodeTo(page, user.email);
    const code = await latestCode(request, user.email, /cancel your subscription/i);
    await enterCode(page, code === "999999" ? "888888" : "999999");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByLabel("Verification code")).toHaveAccessibleDescription("Invalid verification code");
    await expect(page.getByRole("heading", { name: "Your subscription", exact: true })).toHaveCount(0);
    await expect(page.getByText("Plan:")).toHaveCount(0);
  });

  test("an unknown email sees the same 'code sent' step as a known one", async ({ page }, testInfo) => {
    async function answerFor(email: string) {
      await open(page, "/cancel", testInfo);
      await sendCodeTo(page, email);
      await expect(page.getByText(email)).toBeVisible();
      const text = (await page.locator("main").innerText()).replaceAll(email, "EMAIL").replace(/\d{2} : \d{2}/g, "mm : ss");
      return { path: new URL(page.url()).pathname, text };
    }
    const known = await answerFor((await createUser()).email);
    await page.context().clearCookies();
    const unknown = await answerFor(uniqueEmail("nobody"));
    expect(unknown).toEqual(known);
  });
});
