import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { expectKeyboardModal } from "../support/dialogs";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { pdfText } from "../support/pdf-text";

// Billing (commerce §2, §4, §7, §8, issue 35): the payment history after a real card purchase, its invoice
// (our PDF, with its gap-free number), auto-renewal off and on through the server-rendered confirm step, a
// crypto invoice's PDF, and the billing details (a field error, then saved) printed on the next invoice.
// Each test runs without JavaScript and with it.

/** Buys plan `planId` with the good card, signed in (the page is on the checkout). */
async function buyWithCard(page: Page, testInfo: TestInfo, planId: number) {
  await open(page, `/subscription/payment/${planId}`, testInfo);
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await page.getByLabel("Card number").fill(GOOD_CARD);
  await page.getByLabel("Expiry (MM / YY)").fill(`12 / ${(new Date().getUTCFullYear() + 4) % 100}`);
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").fill("Pat Payer");
  await page.getByLabel("Postal code").fill("10115");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}

async function renewalState(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select(["subscriptions.subs_status", "subscriptions.cancel_at_period_end"])
      .where("users.email", "=", email)
      .executeTakeFirstOrThrow(),
  );
}

test.describe("billing", () => {
  test("an empty history, and the tabs as links", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/billing", testInfo);
    await expect(page).toHaveURL(/\/billing$/);
    const tabs = page.getByRole("tablist", { name: "Billing" });
    await expect(tabs.getByRole("tab", { name: "Payment History" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByText("No payment history available")).toBeVisible();
    await expect(page.getByText("You have no active subscription.")).toBeVisible();
    // Never had a plan: no 'Your plan ended on …' (docs/decisions/050).
    await expect(page.getByRole("link", { name: "See plans" })).toHaveCount(0);
    await tabs.getByRole("tab", { name: "Payment Method" }).click();
    await expect(page).toHaveURL(/\/billing\?tab=payment-method$/);
    await expect(tabs.getByRole("tab", { name: "Payment Method" })).toHaveAttribute("aria-selected", "true");
    await tabs.getByRole("tab", { name: "Payment History" }).click();
    await expect(page.getByText("No payment history available")).toBeVisible();
  });

  test("a card purchase shows as Paid with its invoice; auto-renewal goes off and on through the confirm step", async ({ page, request, login }, testInfo) => {
    const user = await login();
    await buyWithCard(page, testInfo, 1);
    const response = await open(page, "/billing", testInfo);
    expect(response?.headers()["cache-control"]).toBe("private, no-store");
    const row = page.getByRole("row").filter({ hasText: "1 Month" });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("cell", { name: "Paid", exact: true })).toBeVisible();
    await expect(row.getByRole("cell", { name: "Card", exact: true })).toBeVisible();
    await expect(row.getByRole("cell", { name: /^\$\d+\.\d{2}$/ })).toBeVisible();
    await expect(row.getByRole("cell", { name: /^\d{2} [A-Z][a-z]+, \d{4}$/ })).toBeVisible();
    const invoice = row.getByRole("link", { name: "Download invoice" });
    // Our invoice for a card payment too: a PDF with its number of the gap-free series.
    const href = (await invoice.getAttribute("href"))!;
    expect(href).toMatch(/^\/billing\/invoice\/\d+\/stripe$/);
    const pdf = await page.request.get(href, { maxRedirects: 0 });
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toBe("application/pdf");
    expect(pdfText(await pdf.body())).toMatch(/Invoice number\s+INV-\d{4}-\d{6}/);
    // Not for anyone else.
    expect((await request.get(href, { maxRedirects: 0 })).headers().location).toMatch(/^\/login/);

    const subscription = page.getByRole("region", { name: "Subscription" });
    await expect(subscription.getByText("ON", { exact: true })).toBeVisible();
    await subscription.getByRole("button", { name: "Cancel auto-renewal" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel auto-renewal?" });
    await expect(dialog).toBeVisible();
    await expect(page).toHaveURL(/confirm=auto-renewal/);
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByText("Auto-renewal updated successfully")).toBeVisible();
    await expect(subscription.getByText("OFF", { exact: true })).toBeVisible();
    expect(await renewalState(user.email)).toEqual({ subs_status: "subscription_cancelled", cancel_at_period_end: 1 });

    await subscription.getByRole("button", { name: "Active auto-renewal" }).click();
    await page.getByRole("dialog", { name: "Turn on auto-renewal?" }).getByRole("button", { name: "Confirm" }).click();
    await expect(subscription.getByText("ON", { exact: true })).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    expect(await renewalState(user.email)).toEqual({ subs_status: "subscription_started", cancel_at_period_end: 0 });

    // 'Go back' closes the dialog without changing anything.
    await subscription.getByRole("button", { name: "Cancel auto-renewal" }).click();
    await page.getByRole("dialog", { name: "Cancel auto-renewal?" }).getByRole("link", { name: "Go back" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    expect(await renewalState(user.email)).toEqual({ subs_status: "subscription_started", cancel_at_period_end: 0 });
  });

  test("with JavaScript the auto-renewal confirmation is a modal: focus stays in it, Escape cancels and focus returns", async ({ page, login }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "a modal needs JavaScript; without it the dialog is a page state");
    const user = await login();
    await buyWithCard(page, testInfo, 1);
    await open(page, "/billing", testInfo);
    const opener = page.getByRole("region", { name: "Subscription" }).getByRole("button", { name: "Cancel auto-renewal" });
    await opener.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/confirm=auto-renewal/);
    await expectKeyboardModal(page, page.getByRole("dialog", { name: "Cancel auto-renewal?" }), { opener });
    await expect(page).not.toHaveURL(/confirm=/);
    expect(await renewalState(user.email)).toEqual({ subs_status: "subscription_started", cancel_at_period_end: 0 });
  });

  test("with JavaScript the refund step is a modal: focus stays in it, Escape is its 'Go back' and focus returns", async ({ page, login }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "a modal needs JavaScript; without it the dialog is a page state");
    const user = await login();
    await buyWithCard(page, testInfo, 1);
    await open(page, "/billing", testInfo);
    const opener = page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("link", { name: "Request refund" });
    await opener.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/refund=\d+/);
    await expectKeyboardModal(page, page.getByRole("dialog", { name: "Request a refund" }), { opener });
    await expect(page).not.toHaveURL(/refund=/);
    // Nothing was refunded.
    expect(await renewalState(user.email)).toEqual({ subs_status: "subscription_started", cancel_at_period_end: 0 });
    await expect(page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("cell", { name: "Paid", exact: true })).toBeVisible();
  });

  test("a crypto purchase's invoice downloads as a PDF, and crypto plans have no auto-renewal button", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/subscription/payment/6", testInfo);
    await page.getByText("Crypto Currencies", { exact: true }).click();
    await page.getByRole("button", { name: "Pay with Crypto" }).click();
    await expect(page).toHaveURL(/\/dev\/bitpay\/invoice\//);
    await page.getByRole("button", { name: "Mark as paid" }).click();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();

    await open(page, "/billing", testInfo);
    const row = page.getByRole("row").filter({ hasText: "2 Years" });
    await expect(row.getByRole("cell", { name: "Crypto", exact: true })).toBeVisible();
    await expect(row.getByRole("cell", { name: "$107.76", exact: true })).toBeVisible();
    await expect(row.getByRole("cell", { name: "Paid", exact: true })).toBeVisible();
    const subscription = page.getByRole("region", { name: "Subscription" });
    await expect(subscription.getByText(/Crypto plans do not renew automatically/)).toBeVisible();
    await expect(subscription.getByRole("button")).toHaveCount(0);

    const downloading = page.waitForEvent("download");
    await row.getByRole("link", { name: "Download invoice" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^invoice_\d+\.pdf$/);
    const href = (await row.getByRole("link", { name: "Download invoice" }).getAttribute("href"))!;
    const pdf = await page.request.get(href);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toBe("application/pdf");
    expect(pdf.headers()["content-disposition"]).toMatch(/^attachment; filename="invoice_\d+\.pdf"$/);
    // Sent once (the server's security headers already carry it; the route adds none of its own).
    expect(pdf.headersArray().filter((header) => header.name.toLowerCase() === "x-content-type-options")).toEqual([
      { name: expect.stringMatching(/^x-content-type-options$/i), value: "nosniff" },
    ]);
    const body = await pdf.body();
    expect(body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const text = pdfText(body);
    expect(text).toContain("VPN plan: 2 Years");
    expect(text).toMatch(/Total \(USD\)\s+\$107\.76/);
    expect(text).toMatch(/Payment method\s+Crypto \(BitPay\)/);
  });

  test("billing details: a refused VAT number is shown next to its field, then saved and printed on the invoice", async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/billing?tab=billing-details", testInfo);
    const tabs = page.getByRole("tablist", { name: "Billing" });
    await expect(tabs.getByRole("tab", { name: "Billing details" })).toHaveAttribute("aria-selected", "true");
    const vat = page.getByLabel("VAT number (optional)");
    if (hasJavaScript(testInfo)) {
      // With JavaScript the VAT number shows for EU countries only.
      await page.getByLabel("Country").selectOption("US");
      await expect(vat).toHaveCount(0);
    } else {
      // Without JavaScript it is always there, saying who it is for.
      await expect(vat).toBeVisible();
      await expect(page.getByText("EU businesses only.", { exact: false })).toBeVisible();
    }
    await page.getByLabel("Country").selectOption("DE");
    await page.getByLabel("Name").fill("José Müller");
    await page.getByLabel("Address (optional)").fill("Straße 5\n50667 Köln");
    await vat.fill("DE000000000");
    await page.getByRole("button", { name: "Save billing details" }).click();
    // Refused by the API (the sandbox's stand-in of VIES), next to the field; nothing typed is lost.
    await expect(page.locator(".field").filter({ has: vat }).getByText("This VAT number is not valid.")).toBeVisible();
    await expect(page.getByLabel("Name")).toHaveValue("José Müller");
    await expect(page.getByLabel("Address (optional)")).toHaveValue("Straße 5\n50667 Köln");
    await expect(page.getByLabel("Country")).toHaveValue("DE");
    await expect(vat).toHaveValue("DE000000000");
    await vat.fill("DE123456789");
    await page.getByRole("button", { name: "Save billing details" }).click();
    await expect(page.getByText("Billing details saved.").first()).toBeVisible();
    await expect(page).toHaveURL(/\/billing\?tab=billing-details$/);
    await expect(page.getByLabel("Name")).toHaveValue("José Müller");
    await expect(vat).toHaveValue("DE123456789");

    // The next invoice is made out to them.
    await buyWithCard(page, testInfo, 1);
    await open(page, "/billing", testInfo);
    const href = (await page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("link", { name: "Download invoice" }).getAttribute("href"))!;
    const pdf = await page.request.get(href);
    expect(pdf.status()).toBe(200);
    const text = pdfText(await pdf.body());
    for (const words of ["José Müller", "Straße 5", "50667 Köln", "Germany", "VAT number: DE123456789", user.email]) expect(text).toContain(words);
    const number = await withDatabase((db) =>
      db.selectFrom("invoices").innerJoin("users", "users.id", "invoices.user_id").select("invoices.number").where("users.email", "=", user.email).executeTakeFirstOrThrow(),
    );
    expect(text).toContain(number.number);
  });
});
