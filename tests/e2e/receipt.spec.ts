import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { expectKeyboardModal } from "../support/dialogs";
import { enterCode, fillSandboxCardAndPay, hasJavaScript, latestCode, open } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { expect, test } from "../support/fixtures";

// The checkout once paid (issue 21): 'Payment Successful!' with its countdown (commerce §3) over a
// receipt — the amount charged, the plan and its months, the first term's end and the renewal, the
// invoice, the apps for this device and how to sign in — and no way to pay again. Both dialogs of the
// checkout as keyboard modals with JavaScript. Without JavaScript and with it.

const LONG_DATE = /\d{2} [A-Z][a-z]+, \d{4}/;
const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

/** Pays the open checkout with 4242: the hosted page without JavaScript, the inline form with it. */
async function payWithGoodCard(page: Page, testInfo: TestInfo) {
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await fillSandboxCardAndPay(page, GOOD_CARD);
}

/** The value of the receipt's line `term`. */
function line(page: Page, term: string) {
  return page.getByRole("region", { name: "Receipt" }).locator("dl > div").filter({ has: page.getByText(term, { exact: true }) }).getByRole("definition");
}

/** Closes 'Payment Successful!' to read the receipt ('View receipt'; Escape is tested with the keyboard). */
async function viewReceipt(page: Page) {
  await page.getByRole("dialog", { name: "Payment Successful!" }).getByRole("link", { name: "View receipt" }).click();
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toHaveCount(0);
  await expect(page).toHaveURL(/\?receipt$/);
}

async function expectNoWayToPay(page: Page) {
  await expect(page.getByRole("button", { name: /^Pay/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Continue to secure payment page" })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Pay again with" })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Choose a payment method" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Apply" })).toHaveCount(0);
}

test.describe("the receipt after paying", () => {
  test("a coupon purchase: the amount charged, the plan, its term and renewal, the invoice, the apps; nothing to pay", async ({
    page,
    login,
  }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/6", testInfo);
    const summary = page.getByRole("complementary", { name: "Order summary" });
    await summary.getByText("Got a coupon?").click();
    await summary.getByLabel("Coupon code").fill("WELCOME10");
    await summary.getByRole("button", { name: "Apply" }).click();
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
    await payWithGoodCard(page, testInfo);

    // 'Payment Successful!' over the receipt. With JavaScript it counts down home, and can be stopped; without
    // it nothing counts down (no meta refresh: a timed refresh nobody can stop, WCAG 2.2.1), the link goes home.
    const paid = page.getByRole("dialog", { name: "Payment Successful!" });
    await expect(paid).toBeVisible();
    await expect(paid.getByText("Your plan is active.", { exact: false })).toBeVisible();
    const counting = hasJavaScript(testInfo) ? 1 : 0;
    await expect(paid.getByText(/redirect to your account in \d+ seconds/)).toHaveCount(counting);
    await expect(paid.getByRole("button", { name: "Stay on this page" })).toHaveCount(counting);
    await expect(paid.getByRole("link", { name: "Go to my account" })).toHaveAttribute("href", "/");
    await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(0);
    await expect(page).toHaveTitle("2 Years — Receipt | VPN Account");
    await expectNoWayToPay(page);

    await viewReceipt(page);
    // Closed, the page stays: no countdown, no refresh.
    await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(0);
    await expect(page.getByRole("heading", { level: 1, name: "Thank you for your purchase" })).toBeVisible();
    await expect(line(page, "Plan")).toHaveText("2 Years");
    await expect(line(page, "Length")).toHaveText(/^\d+ months \(24 months \+ \d+ months? free\)$/);
    await expect(line(page, "Price")).toHaveText("$107.76");
    await expect(line(page, "Coupon")).toHaveText("−$10.78");
    await expect(line(page, "Amount charged")).toHaveText("$96.98");
    await expect(line(page, "Paid on")).toHaveText(LONG_DATE);
    await expect(line(page, "First term ends")).toHaveText(LONG_DATE);
    await expect(line(page, "Renewal")).toHaveText(
      new RegExp(`^Renews automatically on ${LONG_DATE.source} at \\$107\\.76 every 2 years, charged to Visa ending in 4242\\.`),
    );
    const receipt = page.getByRole("region", { name: "Receipt" });
    // Our invoice, a PDF, for a card payment too (issue 35).
    await expect(receipt.getByRole("link", { name: "Download invoice" })).toHaveAttribute("href", /^\/billing\/invoice\/\d+\/stripe$/);
    await expect(receipt.getByRole("link", { name: "All payments in Billing" })).toHaveAttribute("href", "/billing");

    // The next step: the browser says Windows (Playwright's desktop Chrome), so the Windows app comes first.
    const apps = page.getByRole("region", { name: "Next: get the app" });
    await expect(apps.getByText("For this device (Windows):")).toBeVisible();
    await expect(apps.getByRole("link", { name: "Download for Windows" })).toHaveAttribute("href", /^https:\/\/.+/);
    await expect(apps.getByRole("link", { name: "macOS: Download for macOS" })).toBeVisible();
    await expect(apps.getByRole("link", { name: "Android: Get it on Google Play" })).toHaveAttribute("href", /play\.google\.com/);
    await expect(apps.getByRole("link", { name: "iOS: Download on the App Store" })).toHaveAttribute("href", /apps\.apple\.com/);
    await expect(apps.getByRole("heading", { name: "Sign in to the app" })).toBeVisible();
    await expect(apps.getByText(`Sign in with ${user.email} and the password you chose.`, { exact: false })).toBeVisible();
    await expectNoWayToPay(page);

    // A reload is still the receipt, not a checkout.
    await open(page, "/subscription/payment/6", testInfo);
    await expect(page.getByRole("region", { name: "Receipt" })).toBeVisible();
    await expectNoWayToPay(page);
  });

  test.describe("on a phone", () => {
    test.use({ userAgent: IPHONE_UA });
    test("the one-time plan: 'does not renew', and the iOS app first", async ({ page, login }, testInfo) => {
      await login();
      await open(page, "/subscription/payment/7", testInfo);
      await payWithGoodCard(page, testInfo);
      await viewReceipt(page);
      await expect(line(page, "Amount charged")).toHaveText("$199.00");
      await expect(line(page, "Coupon")).toHaveCount(0);
      await expect(line(page, "Renewal")).toHaveText("Does not renew: this was a one-time payment, nothing more is charged.");
      const apps = page.getByRole("region", { name: "Next: get the app" });
      await expect(apps.getByText("For this device (iOS):")).toBeVisible();
      await expect(apps.getByRole("link", { name: "Download on the App Store" })).toHaveAttribute("href", /apps\.apple\.com/);
      await expect(apps.getByRole("link", { name: "Windows: Download for Windows" })).toBeVisible();
    });
  });
});

test.describe("'Payment Successful!' counts down home with JavaScript", () => {
  test.beforeEach(({}, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "without JavaScript nothing counts down: the receipt stays with its link");
  });

  test("at the end of its 300 seconds it goes home", async ({ page, login }, testInfo) => {
    await login();
    await page.clock.install();
    await open(page, "/subscription/payment/1", testInfo);
    await payWithGoodCard(page, testInfo);
    const paid = page.getByRole("dialog", { name: "Payment Successful!" });
    await expect(paid.getByText(/redirect to your account in (300|29\d) seconds/)).toBeVisible();
    await page.clock.fastForward("05:01");
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("heading", { name: "Welcome to the product!" })).toBeVisible();
  });

  test("'Stay on this page' stops the countdown; the dialog stays with its links", async ({ page, login }, testInfo) => {
    await login();
    await page.clock.install();
    await open(page, "/subscription/payment/1", testInfo);
    await payWithGoodCard(page, testInfo);
    const paid = page.getByRole("dialog", { name: "Payment Successful!" });
    await expect(paid.getByText(/redirect to your account in \d+ seconds/)).toBeVisible();
    await paid.getByRole("button", { name: "Stay on this page" }).click();
    await expect(paid.getByText(/redirect to your account/)).toHaveCount(0);
    await expect(paid.getByRole("button", { name: "Stay on this page" })).toHaveCount(0);
    // Focus stays in the dialog, on the way home.
    await expect(paid.getByRole("link", { name: "Go to my account" })).toBeFocused();
    await page.clock.fastForward("10:00");
    await expect(page).toHaveURL(/\/subscription\/payment\/1$/);
    await expect(paid.getByText("Your plan is active.", { exact: false })).toBeVisible();
  });
});

test.describe("the checkout's dialogs with the keyboard", () => {
  test.beforeEach(({}, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "a modal dialog is JavaScript's; without it they are page states");
  });

  test("'Payment Successful!' keeps focus; Escape closes it to the receipt, which stays", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/subscription/payment/1", testInfo);
    await payWithGoodCard(page, testInfo);
    await expectKeyboardModal(page, page.getByRole("dialog", { name: "Payment Successful!" }));
    await expect(page).toHaveURL(/\?receipt$/);
    await expect(page.getByRole("heading", { level: 1, name: "Thank you for your purchase" })).toBeFocused();
    await expect(page.getByRole("region", { name: "Receipt" })).toBeVisible();
    await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(0);
  });

  test("'Verify Your Email' keeps focus through both steps; Escape is 'Use another email'", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("keyboard");
    await open(page, "/subscription/payment/1", testInfo);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Email").press("Enter");
    const verify = page.getByRole("dialog", { name: "Verify Your Email" });
    await expect(verify).toBeVisible();
    // A navigation under way (a revalidation) destroys the context: asked again, not failed.
    await expect.poll(() => verify.evaluate((element) => element.matches(":modal")).catch(() => false)).toBe(true);
    await enterCode(page, await latestCode(request, email, /verification code/i));
    await verify.getByRole("button", { name: "Next" }).press("Enter");
    // The password step: focus moves to its first field, inside the dialog.
    await expect(verify.getByLabel("Password", { exact: true })).toBeFocused();
    await expectKeyboardModal(page, verify);
    // Escape went back to the email step, with focus on its field and the address kept (issue 33).
    await expect(page.getByLabel("Email")).toBeFocused();
    await expect(page.getByLabel("Email")).toHaveValue(email);
  });
});
