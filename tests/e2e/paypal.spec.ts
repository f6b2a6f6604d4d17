import type { APIRequestContext, Page } from "@playwright/test";
import { enterCode, expectHome, latestCode, latestMail, open, withDatabase } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { expect, test } from "../support/fixtures";
import { answerAtPayPal, buyWithPayPal, continueToPayPal, newPayPalCustomer, subscriptionsOf, transactionsOf } from "./paypal-support";

// PayPal (issue 23) through the stand-in's approval page ('Approve', 'Cancel', and how the sandbox
// buyer pays), with JavaScript off and on: in sandbox mode the checkout's PayPal panel is the
// 'Continue to PayPal' redirect in both (PayPal's own buttons need PayPal's script and live credentials).

test.describe("PayPal", () => {
  test("a signed-in customer buys the monthly plan with PayPal; Billing says PayPal; auto-renewal goes off and on @smoke", async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/1", testInfo);
    const panel = page.locator("details").filter({ has: page.getByText("PayPal", { exact: true }) });
    await page.getByText("PayPal", { exact: true }).click();
    await expect(panel.getByText("With PayPal you pay $9.99 now. PayPal then collects $9.99 every 1 month", { exact: false })).toBeVisible();
    await page.getByRole("button", { name: "Continue to PayPal" }).click();
    await expect(page).toHaveURL(/\/dev\/paypal\//);
    // A second return from PayPal (a reload, the back button) must not charge again.
    const returned = page.waitForRequest((request) => request.url().includes("paypal=return"));
    await answerAtPayPal(page, "Approve");
    const returnUrl = (await returned).url();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
    await page.goto(returnUrl);
    await expect(page.getByRole("heading", { name: "Thank you for your purchase" })).toBeVisible();
    // Nor does PayPal's cancel URL undo it: the page stays the receipt.
    await page.goto(returnUrl.replace("paypal=return", "paypal=cancel"));
    await expect(page.getByRole("heading", { name: "Thank you for your purchase" })).toBeVisible();
    await expect(page.getByText("The PayPal payment was cancelled.")).toHaveCount(0);
    // The receipt says who collects the renewals.
    await expect(page.getByText(/Renews automatically on .+ at \$9\.99 every month, charged to PayPal\./).first()).toBeAttached();
    expect(await transactionsOf(user.email)).toEqual([{ status: "paid", plan_id: 1, payment_gateway: "paypal" }]);
    expect(await subscriptionsOf(user.email)).toEqual([
      { plan_id: 1, billing_type: "recurring", subscription_by: "paypal", subs_status: "subscription_started" },
    ]);

    await open(page, "/billing", testInfo);
    const row = page.getByRole("row").filter({ hasText: "1 Month" });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("cell", { name: "PayPal", exact: true })).toBeVisible();
    await expect(row.getByRole("cell", { name: "Paid", exact: true })).toBeVisible();

    // Auto-renewal off suspends the PayPal subscription, on reactivates it.
    const subscription = page.getByRole("region", { name: "Subscription" });
    await expect(subscription.getByText("ON", { exact: true })).toBeVisible();
    await expect(subscription.getByText("PayPal", { exact: true })).toBeVisible();
    await subscription.getByRole("button", { name: "Cancel auto-renewal" }).click();
    await page.getByRole("dialog", { name: "Cancel auto-renewal?" }).getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByText("Auto-renewal updated successfully")).toBeVisible();
    await expect(subscription.getByText("OFF", { exact: true })).toBeVisible();
    expect((await subscriptionsOf(user.email))[0]?.subs_status).toBe("subscription_cancelled");
    await subscription.getByRole("button", { name: "Active auto-renewal" }).click();
    await page.getByRole("dialog", { name: "Turn on auto-renewal?" }).getByRole("button", { name: "Confirm" }).click();
    await expect(subscription.getByText("ON", { exact: true })).toBeVisible();
    expect((await subscriptionsOf(user.email))[0]?.subs_status).toBe("subscription_started");
  });

  /** The visitor's part of the checkout: the email, its code and a password; then the page is signed in. */
  async function verifyAsVisitor(page: Page, request: APIRequestContext, email: string) {
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    const verify = page.getByRole("dialog", { name: "Verify Your Email" });
    await expect(verify).toBeVisible();
    await enterCode(page, await latestCode(request, email, /verification code/i));
    await verify.getByRole("button", { name: "Next" }).click();
    await page.getByLabel("Password", { exact: true }).fill("a-good-password");
    await page.getByLabel("Confirm Password").fill("a-good-password");
    await page.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByText("Verification successful!")).toBeVisible();
  }

  test("a visitor verifies the email, then buys the 5-year plan with PayPal (a one-time order)", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("paypal");
    await open(page, "/subscription/payment/7", testInfo);
    await page.getByText("PayPal", { exact: true }).click();
    await expect(page.getByText("With PayPal you pay $199.00 once for 5 years. It does not renew: nothing more is charged.")).toBeVisible();
    await expect(page.getByText("Enter and verify your email above to pay with PayPal.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Continue to PayPal" })).toHaveCount(0);
    await verifyAsVisitor(page, request, email);

    await continueToPayPal(page);
    await answerAtPayPal(page, "Approve");
    const paid = page.getByRole("dialog", { name: "Payment Successful!" });
    await expect(paid).toBeVisible();
    await paid.getByRole("link", { name: "Go to my account" }).click();
    await expectHome(page);
    await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
    expect(await transactionsOf(email)).toEqual([{ status: "paid", plan_id: 7, payment_gateway: "paypal" }]);
    expect(await subscriptionsOf(email)).toEqual([{ plan_id: 7, billing_type: "single", subscription_by: "paypal", subs_status: "subscription_started" }]);

    await open(page, "/billing", testInfo);
    const row = page.getByRole("row").filter({ hasText: "5 Years" });
    await expect(row.getByRole("cell", { name: "PayPal", exact: true })).toBeVisible();
    await expect(page.getByRole("region", { name: "Subscription" }).getByText("One-time Payment")).toBeVisible();
    // The invoice of a PayPal payment is a PDF.
    const href = (await row.getByRole("link", { name: "Download invoice" }).getAttribute("href"))!;
    const pdf = await page.request.get(href);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toMatch(/^application\/pdf/);
  });

  test("a visitor verifies the email, then buys the 3-month plan as a PayPal subscription", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("paypal-visitor");
    await open(page, "/subscription/payment/2", testInfo);
    await verifyAsVisitor(page, request, email);
    await continueToPayPal(page);
    await answerAtPayPal(page, "Approve");
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
    expect(await transactionsOf(email)).toEqual([{ status: "paid", plan_id: 2, payment_gateway: "paypal" }]);
    expect(await subscriptionsOf(email)).toEqual([
      { plan_id: 2, billing_type: "recurring", subscription_by: "paypal", subs_status: "subscription_started" },
    ]);
  });

  test("a signed-in customer buys the 5-year plan with PayPal: one order, no renewal to switch", async ({ page, login }, testInfo) => {
    const user = await newPayPalCustomer(page, testInfo, login, 7);
    expect(await transactionsOf(user.email)).toEqual([{ status: "paid", plan_id: 7, payment_gateway: "paypal" }]);
    expect(await subscriptionsOf(user.email)).toEqual([{ plan_id: 7, billing_type: "single", subscription_by: "paypal", subs_status: "subscription_started" }]);
    await open(page, "/billing", testInfo);
    const subscription = page.getByRole("region", { name: "Subscription" });
    await expect(subscription.getByText("One-time Payment")).toBeVisible();
    await expect(subscription.getByRole("button", { name: "Cancel auto-renewal" })).toHaveCount(0);
  });

  test("WELCOME10 lowers the first PayPal payment, as it does the card's", async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/1", testInfo);
    const summary = page.getByRole("complementary", { name: "Order summary" });
    await summary.getByText("Got a coupon?").click();
    await summary.getByLabel("Coupon code").fill("WELCOME10");
    await summary.getByRole("button", { name: "Apply" }).click();
    await expect(summary.getByText("Coupon WELCOME10")).toBeVisible();
    const total = (await summary.locator(".total dd").textContent())!.trim();
    expect(total).not.toBe("$9.99");
    await continueToPayPal(page);
    // PayPal's page shows what is approved: the lowered first payment.
    await expect(page.getByText(total).first()).toBeVisible();
    await answerAtPayPal(page, "Approve");
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
    const charged = await withDatabase((db) =>
      db
        .selectFrom("transactions")
        .innerJoin("users", "users.id", "transactions.user_id")
        .select(["transactions.amount_cents", "transactions.coupon_code", "transactions.payment_gateway"])
        .where("users.email", "=", user.email)
        .execute(),
    );
    expect(charged).toEqual([{ amount_cents: Math.round(Number(total.slice(1)) * 100), coupon_code: "WELCOME10", payment_gateway: "paypal" }]);
  });

  test("'Cancel' at PayPal: back to the checkout with 'The PayPal payment was cancelled.', nothing charged", async ({ page, login }, testInfo) => {
    const user = await login();
    for (const planId of [1, 7]) {
      await open(page, `/subscription/payment/${planId}`, testInfo);
      await continueToPayPal(page);
      await answerAtPayPal(page, "Cancel");
      await expect(page).toHaveURL(new RegExp(`/subscription/payment/${planId}\\?paypal=cancel`));
      // Next to the PayPal form (its panel open) and as a toast.
      await expect(page.getByRole("alert").filter({ hasText: "The PayPal payment was cancelled." }).first()).toBeVisible();
      await expect(page.getByRole("button", { name: "Continue to PayPal" })).toBeVisible();
    }
    expect(await transactionsOf(user.email)).toEqual([]);
    expect(await subscriptionsOf(user.email)).toEqual([]);
    await open(page, "/billing", testInfo);
    await expect(page.getByText("No payment history available")).toBeVisible();
  });

  test("a declined PayPal payment shows PayPal's reason next to the PayPal form and charges nothing", async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/7", testInfo);
    await continueToPayPal(page);
    await answerAtPayPal(page, "Approve", "Card that is declined");
    await expect(page).toHaveURL(/\/subscription\/payment\/7\?paypal=return/);
    const message = page.locator("details[open] .form-error[role=alert]");
    await expect(message).toHaveText(/declined/i);
    await expect(page.getByRole("button", { name: "Continue to PayPal" })).toBeVisible();
    // Recorded as a failed payment (as a declined card is), nothing paid, no plan.
    expect(await transactionsOf(user.email)).toEqual([{ status: "Payment failed", plan_id: 7, payment_gateway: "paypal" }]);
    expect(await subscriptionsOf(user.email)).toEqual([]);
    // A reload of PayPal's return does not turn it into a payment.
    await page.reload();
    await expect(page.locator("details[open] .form-error[role=alert]")).toHaveText(/declined/i);
    expect(await transactionsOf(user.email)).toHaveLength(1);
    expect(await subscriptionsOf(user.email)).toEqual([]);
  });

  test("a PayPal payment is refunded through PayPal from Billing; the account is Free", async ({ page, request, login }, testInfo) => {
    const user = await newPayPalCustomer(page, testInfo, login, 1);
    await open(page, "/billing", testInfo);
    const row = page.getByRole("row").filter({ hasText: "1 Month" });
    await row.getByRole("link", { name: "Request refund" }).click();
    const dialog = page.getByRole("dialog", { name: "Request a refund" });
    await expect(dialog.getByText("The payment is returned in full to the PayPal account that paid.")).toBeVisible();
    await dialog.getByRole("button", { name: "Refund my payment" }).click();
    await expect(page.getByText("Your payment has been refunded.")).toBeVisible();
    await expect(row.getByRole("cell", { name: "Refunded", exact: true })).toBeVisible();
    // The refunded plan ended now: said so, with the way back (docs/decisions/050).
    await expect(page.getByText(/^Your plan ended on \d{2} \w+, \d{4}\./)).toBeVisible();
    await expect(page.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
    expect(await transactionsOf(user.email)).toEqual([{ status: "refunded", plan_id: 1, payment_gateway: "paypal" }]);
    const mail = await latestMail(request, user.email, /refunded/i);
    expect(mail.text).toContain("$9.99");
    await open(page, "/", testInfo);
    await expect(page.getByRole("article", { name: "Subscription" }).getByText("Free", { exact: true })).toBeVisible();
  });

  test("the PayPal return and the buttons' route refuse what is not theirs", { tag: "@once" }, async ({ page, login, baseURL }, testInfo) => {
    // Not signed in: the buttons' route answers 401 JSON; signed in, a malformed body is a 4xx with a message.
    const anonymous = await page.request.post("/payments/paypal", { headers: { Origin: baseURL! }, data: { planId: 1 } });
    expect(anonymous.status()).toBe(401);
    await login();
    for (const data of [{ planId: 1 }, { planId: 1, return_path: "https://evil.example/", idempotency_key: "k".repeat(20) }, "not json"]) {
      const refused = await page.request.post("/payments/paypal", { headers: { Origin: baseURL!, "Content-Type": "application/json" }, data });
      expect(refused.status()).toBeGreaterThanOrEqual(400);
      expect(refused.status()).toBeLessThan(500);
      expect(((await refused.json()) as { message: string }).message).toBeTruthy();
    }
    // An unknown PayPal id on the return: a message next to the form, not a 500.
    const response = await open(page, "/subscription/payment/1?paypal=return&token=NOT-AN-ORDER", testInfo);
    expect(response?.status()).toBeLessThan(500);
    await expect(page.locator(".form-error[role=alert]").first()).toBeVisible();
    // A malformed one is no PayPal return at all: the checkout as usual.
    expect((await open(page, "/subscription/payment/1?paypal=return&token=%3Cscript%3E", testInfo))?.status()).toBe(200);
  });

  test("the buttons' route opens the PayPal order of the page's key once", { tag: "@once" }, async ({ page, login, baseURL }) => {
    await login();
    const body = { planId: 7, return_path: "/subscription/payment/7", idempotency_key: "a-page-key-0123456789" };
    const first = await page.request.post("/payments/paypal", { headers: { Origin: baseURL! }, data: body });
    expect(first.status()).toBe(200);
    const opened = (await first.json()) as { ok: boolean; id: string; kind: string };
    expect(opened).toMatchObject({ ok: true, kind: "order" });
    const again = (await (await page.request.post("/payments/paypal", { headers: { Origin: baseURL! }, data: body })).json()) as { id: string };
    expect(again.id).toBe(opened.id);
  });
});

test("buying with PayPal twice in a row is refused like a second card purchase", async ({ page, login }, testInfo) => {
  const user = await login();
  await buyWithPayPal(page, testInfo, 1);
  await open(page, "/subscription/payment/1", testInfo);
  // The plan is the account's now: the page is its receipt, with nothing to pay twice for.
  await expect(page.getByRole("button", { name: "Continue to PayPal" })).toHaveCount(0);
  expect(await transactionsOf(user.email)).toHaveLength(1);
});
