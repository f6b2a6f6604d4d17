import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { enterCode, fillSandboxCardAndPay, hasJavaScript, latestCode, open } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { expect, test } from "../support/fixtures";

// The checkout's country and VAT (issue 35): the country pre-selected from the saved billing country,
// else the browser's language, else the United States; the order summary shows the net, the API's tax
// line and the total before paying, and the receipt the same; the customer can change the country
// (without JavaScript 'Update' posts it, with it the summary re-quotes in place); an EU business with
// a VAT number is reverse charged. The 1-year plan (id 5) costs $71.88 before tax.

const summaryOf = (page: Page) => page.getByRole("complementary", { name: "Order summary" });

/** The value of the summary's line `term`. */
function summaryLine(page: Page, term: string) {
  return summaryOf(page).locator("dl > div").filter({ has: page.getByText(term, { exact: true }) }).getByRole("definition");
}

/** The value of the receipt's line `term`. */
function receiptLine(page: Page, term: string) {
  return page.getByRole("region", { name: "Receipt" }).locator("dl > div").filter({ has: page.getByText(term, { exact: true }) }).getByRole("definition");
}

/**
 * Chooses the summary's country: without JavaScript 'Update' posts it and the page comes back; with
 * JavaScript the change alone re-quotes, the page is not reloaded (a mark left on the window stays) and
 * the focus stays on the select.
 */
async function chooseCountry(page: Page, testInfo: TestInfo, country: string) {
  const summary = summaryOf(page);
  if (!hasJavaScript(testInfo)) {
    await summary.getByLabel("Country").selectOption(country);
    await summary.getByRole("button", { name: "Update" }).click();
    await expect(summary.getByLabel("Country")).toHaveValue(country);
    return;
  }
  await page.evaluate(() => Object.assign(window, { __samePage: true }));
  const select = summary.getByLabel("Country");
  await select.focus();
  await select.selectOption(country);
  await expect(summary.locator("dl")).not.toHaveAttribute("aria-busy", "true");
  expect(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage)).toBe(true);
  // The select is not replaced while the summary re-quotes: the focus stays on it.
  await expect(select).toBeFocused();
  await expect(select).toHaveValue(country);
}

async function payWithGoodCard(page: Page, testInfo: TestInfo) {
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await fillSandboxCardAndPay(page, GOOD_CARD);
}

async function viewReceipt(page: Page) {
  await page.getByRole("dialog", { name: "Payment Successful!" }).getByRole("link", { name: "View receipt" }).click();
  await expect(page.getByRole("region", { name: "Receipt" })).toBeVisible();
}

test.describe("a German visitor", () => {
  test.use({ locale: "de-DE" });
  // The browser's German gives the country; the page's words are pinned to English by the `lang` cookie
  // (issue 36: Accept-Language alone would show the portal in German), as this test reads them.
  test.beforeEach(async ({ context, baseURL }) => {
    await context.addCookies([{ name: "lang", value: "en", url: baseURL ?? "http://127.0.0.1" }]);
  });

  test("sees Germany's VAT before paying for the 1-year plan, and on the receipt", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("vat-de");
    await open(page, "/subscription/payment/5", testInfo);
    const summary = summaryOf(page);
    await expect(summary.getByLabel("Country")).toHaveValue("DE");
    await expect(summaryLine(page, "Net price")).toHaveText("$71.88");
    await expect(summaryLine(page, "VAT 19 % (Germany)")).toHaveText("$13.66");
    await expect(summaryLine(page, "Total")).toHaveText("$85.54");

    // The visitor makes the account in the checkout; the country goes with it.
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await enterCode(page, await latestCode(request, email, /verification code/i));
    await page.getByRole("dialog", { name: "Verify Your Email" }).getByRole("button", { name: "Next" }).click();
    await page.getByLabel("Password", { exact: true }).fill("a-good-password");
    await page.getByLabel("Confirm Password").fill("a-good-password");
    await page.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByRole("heading", { name: "Confirm your email" })).toBeVisible();
    await expect(summary.getByLabel("Country")).toHaveValue("DE");
    await expect(summaryLine(page, "VAT 19 % (Germany)")).toHaveText("$13.66");
    await expect(summaryLine(page, "Total")).toHaveText("$85.54");
    await expect(page.getByText(/^You pay \$85\.54 now\./)).toBeVisible();

    await payWithGoodCard(page, testInfo);
    await viewReceipt(page);
    await expect(receiptLine(page, "Net price")).toHaveText("$71.88");
    await expect(receiptLine(page, "VAT 19 % (Germany)")).toHaveText("$13.66");
    await expect(receiptLine(page, "Amount charged")).toHaveText("$85.54");

    // The country is now the account's billing country.
    await open(page, "/billing?tab=billing-details", testInfo);
    await expect(page.getByLabel("Country")).toHaveValue("DE");

    // Billing: the renewal and the payment say their VAT.
    await open(page, "/billing", testInfo);
    await expect(page.locator(".next-charge")).toContainText("Next charge: $85.54 (including VAT 19 % (Germany): $13.66) on ");
    const row = page.getByRole("row").filter({ hasText: "1 Year" });
    await expect(row.getByRole("cell").nth(3)).toHaveText("$85.54 including VAT 19 % (Germany): $13.66");

    // A change to the 2-year plan says what its charge now includes of VAT, before and in its summary.
    await open(page, "/subscription/payment/6", testInfo);
    await expect(page.getByRole("heading", { name: "Change from 1 Year to 2 Years" })).toBeVisible();
    await expect(page.locator(".plan-change__amount")).toHaveText(/^\$\d+\.\d{2} \(including VAT 19 % \(Germany\): \$\d+\.\d{2}\)$/);
    const change = page.getByRole("complementary", { name: "Plan change summary" });
    await expect(change.getByText("VAT 19 % (Germany)", { exact: true })).toBeVisible();
    await expect(change.locator("div").filter({ has: page.getByText("Next renewal", { exact: true }) }).locator("dd")).toHaveText(
      /^\$128\.23 on \d{2} \w+, \d{4} \(including VAT 19 % \(Germany\): \$20\.47\)$/,
    );
  });
});

test.describe("the country in the order summary", () => {
  test("a visitor changes the country with the email typed and not yet sent: it stays, and so does the coupon", async ({ page }, testInfo) => {
    const email = uniqueEmail("vat-typed");
    await open(page, "/subscription/payment/5", testInfo);
    const summary = summaryOf(page);
    await summary.getByText("Got a coupon?").click();
    await summary.getByLabel("Coupon code").fill("WELCOME10");
    await summary.getByRole("button", { name: "Apply" }).click();
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
    await page.getByLabel("Email").fill(email);
    await chooseCountry(page, testInfo, "FR");
    await expect(summaryLine(page, "VAT 20 % (France)")).toHaveText("$12.94");
    await expect(summaryLine(page, "Total")).toHaveText("$77.63");
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue(email);
    // And the email step goes on from there.
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("dialog", { name: "Verify Your Email" })).toBeVisible();
    await expect(summary.getByLabel("Country")).toHaveValue("FR");
  });

  test("a US buyer sees no VAT; France shows France's VAT, the United States none again, and the coupon stays", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/subscription/payment/5", testInfo);
    const summary = summaryOf(page);
    // The default browser speaks en-US: the United States, and the summary as it always was.
    await expect(summary.getByLabel("Country")).toHaveValue("US");
    await expect(summary.getByText(/^VAT/)).toHaveCount(0);
    await expect(summary.getByText("Net price")).toHaveCount(0);
    await expect(summaryLine(page, "Total")).toHaveText("$71.88");

    await summary.getByText("Got a coupon?").click();
    await summary.getByLabel("Coupon code").fill("WELCOME10");
    await summary.getByRole("button", { name: "Apply" }).click();
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
    await expect(summaryLine(page, "Total")).toHaveText("$64.69");

    await chooseCountry(page, testInfo, "FR");
    await expect(summaryLine(page, "VAT 20 % (France)")).toHaveText("$12.94");
    await expect(summaryLine(page, "Net price")).toHaveText("$64.69");
    await expect(summaryLine(page, "Total")).toHaveText("$77.63");
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
    // The panels say the same total.
    await expect(page.getByText(/^You pay \$77\.63 now\./)).toBeVisible();

    await chooseCountry(page, testInfo, "US");
    await expect(summary.getByText(/^VAT/)).toHaveCount(0);
    await expect(summary.getByText("Net price")).toHaveCount(0);
    await expect(summaryLine(page, "Total")).toHaveText("$64.69");
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
  });

  test("a business in Germany with a VAT number sees 'VAT reverse charged' before paying", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/billing?tab=billing-details", testInfo);
    await page.getByLabel("Country").selectOption("DE");
    await page.getByLabel("Name").fill("Muster GmbH");
    await page.getByLabel("VAT number (optional)").fill("DE123456789");
    await page.getByRole("button", { name: "Save billing details" }).click();
    await expect(page.getByText("Billing details saved.").first()).toBeVisible();

    await open(page, "/subscription/payment/5", testInfo);
    const summary = summaryOf(page);
    // The saved country comes first (the browser speaks en-US).
    await expect(summary.getByLabel("Country")).toHaveValue("DE");
    await expect(summaryLine(page, "VAT reverse charged")).toHaveText("$0.00");
    await expect(summaryLine(page, "Total")).toHaveText("$71.88");
    await expect(summary.getByText(/^VAT 19 %/)).toHaveCount(0);

    await payWithGoodCard(page, testInfo);
    await viewReceipt(page);
    await expect(receiptLine(page, "VAT reverse charged")).toHaveText("$0.00");
    await expect(receiptLine(page, "Amount charged")).toHaveText("$71.88");
    // Paying kept the VAT number with the same country.
    await open(page, "/billing?tab=billing-details", testInfo);
    await expect(page.getByLabel("VAT number (optional)")).toHaveValue("DE123456789");
    await open(page, "/billing", testInfo);
    await expect(page.locator(".next-charge")).toContainText("Next charge: $71.88 (VAT reverse charged) on ");
    await expect(page.getByRole("row").filter({ hasText: "1 Year" }).getByRole("cell").nth(3)).toHaveText("$71.88 VAT reverse charged");
  });

  test("from the checkout, a business adds its VAT number in Billing details and comes back reverse charged", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/subscription/payment/5", testInfo);
    const summary = summaryOf(page);
    // Outside the EU there is no VAT number to add.
    await expect(summary.getByRole("link", { name: "Billing details" })).toHaveCount(0);
    await chooseCountry(page, testInfo, "DE");
    await expect(summaryLine(page, "VAT 19 % (Germany)")).toHaveText("$13.66");
    await summary.getByRole("link", { name: "Billing details" }).click();
    await expect(page).toHaveURL(/\/billing\?tab=billing-details&return_to=%2Fsubscription%2Fpayment%2F5$/);
    await expect(page.getByRole("link", { name: "Back to checkout" })).toHaveAttribute("href", "/subscription/payment/5");
    await page.getByLabel("Country").selectOption("DE");
    await page.getByLabel("Name").fill("Muster GmbH");
    // A refusal keeps the way back.
    await page.getByLabel("VAT number (optional)").fill("DE000000000");
    await page.getByRole("button", { name: "Save billing details" }).click();
    await expect(page.getByText("This VAT number is not valid.")).toBeVisible();
    await page.getByLabel("VAT number (optional)").fill("DE123456789");
    await page.getByRole("button", { name: "Save billing details" }).click();
    await expect(page).toHaveURL(/\/subscription\/payment\/5$/);
    await expect(page.getByText("Billing details saved.").first()).toBeVisible();
    await expect(summary.getByLabel("Country")).toHaveValue("DE");
    await expect(summaryLine(page, "VAT reverse charged")).toHaveText("$0.00");
    await expect(summaryLine(page, "Total")).toHaveText("$71.88");
    await expect(summary.getByRole("link", { name: "Billing details" })).toHaveCount(0);
  });

  test("Billing details go back only to a checkout", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/billing?tab=billing-details&return_to=https%3A%2F%2Fevil.example%2Fpayment%2F5", testInfo);
    await expect(page.getByRole("link", { name: "Back to checkout" })).toHaveCount(0);
    await page.getByLabel("Country").selectOption("US");
    await page.getByLabel("Name").fill("Pat Payer");
    await page.getByRole("button", { name: "Save billing details" }).click();
    await expect(page).toHaveURL(/\/billing\?tab=billing-details$/);
  });

  test("a country that is no country is refused next to the field, nothing else lost", { tag: "@once" }, async ({ page, login, baseURL }) => {
    await login();
    const response = await page.request.post("/subscription/payment/5", {
      form: { intent: "country", country: "ZZ" },
      headers: { Origin: new URL(baseURL!).origin },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(422);
    expect(await response.text()).toContain("Please choose your country.");
  });
});
