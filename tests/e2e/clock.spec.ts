import { advanceServerClock } from "../support/clock";
import { expectHome, latestMail, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { buyMonthByCard, payWith4242 } from "./refund-support";

// The test clock (DESIGN §2) moves the whole server's business time, so these run on a server of their own
// (the "clock" project of playwright.config.ts), one at a time: every test that moves it lives in this file
// or in paypal-clock.spec.ts, which the project's single worker never runs beside it.
test.describe.configure({ mode: "serial" });

async function transactionsOf(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .select(["transactions.status", "transactions.plan_id"])
      .where("users.email", "=", email)
      .orderBy("transactions.id")
      .execute(),
  );
}

test("a monthly plan renews when the clock passes a month, with a second transaction", async ({ page, login }, testInfo) => {
  const user = await login();
  await open(page, "/subscription/payment/1", testInfo);
  await payWith4242(page, testInfo);
  await advanceServerClock(page, 32);
  expect(await transactionsOf(user.email)).toEqual([
    { status: "paid", plan_id: 1 },
    { status: "paid", plan_id: 1 },
  ]);
  await open(page, "/", testInfo);
  await expectHome(page);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
});

test("after the 5-year plan's end the account is Free again", async ({ page, login }, testInfo) => {
  const user = await login();
  await open(page, "/subscription/payment/7", testInfo);
  await payWith4242(page, testInfo);
  await open(page, "/", testInfo);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
  await advanceServerClock(page, 5 * 366 + 1);
  await open(page, "/", testInfo);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Free", { exact: true })).toBeVisible();
  expect(await transactionsOf(user.email)).toEqual([{ status: "paid", plan_id: 7 }]);
});

test("a crypto plan gets a renewal invoice 3 days before it ends; paying it on the due-invoice page renews it", async ({ page, request, login }, testInfo) => {
  const user = await login();
  await open(page, "/subscription/payment/1", testInfo);
  await page.getByText("Crypto Currencies", { exact: true }).click();
  await page.getByRole("button", { name: "Pay with Crypto" }).click();
  await page.getByRole("button", { name: "Mark as paid" }).click();
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
  const before = await withDatabase((db) =>
    db.selectFrom("subscriptions").innerJoin("users", "users.id", "subscriptions.user_id").select(["subscriptions.sub_exp_date", "subscriptions.subscription_by"]).where("users.email", "=", user.email).executeTakeFirstOrThrow(),
  );
  expect(before.subscription_by).toBe("bitpay");

  // One month minus two days later the plan ends within 3 days: the invoice is emailed.
  await advanceServerClock(page, 28);
  const mail = await latestMail(request, user.email, /renewal invoice/i);
  const link = mail.text.match(/https?:\/\/\S+\/subscription\/bitpay-pay-due-invoice\/[0-9a-f-]{36}/)![0];
  await open(page, new URL(link).pathname, testInfo);
  await expect(page.getByRole("heading", { name: "Secure Checkout" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Complete your BitPay Due Invoice" })).toBeVisible();
  await expect(page.getByText("$9.99").first()).toBeVisible();
  await page.getByRole("button", { name: "Pay with Crypto" }).click();
  await page.getByRole("button", { name: "Mark as paid" }).click();
  await expect(page.getByText(/This invoice is paid/)).toBeVisible();
  const after = await withDatabase((db) =>
    db.selectFrom("subscriptions").innerJoin("users", "users.id", "subscriptions.user_id").select("subscriptions.sub_exp_date").where("users.email", "=", user.email).executeTakeFirstOrThrow(),
  );
  expect(Date.parse(after.sub_exp_date) - Date.parse(before.sub_exp_date)).toBeGreaterThan(27 * 86_400_000);
});

// The 30-day money-back guarantee by the product's clock (issue 12, decision 016).
test("31 days after a purchase the history offers no refund", async ({ page, login }, testInfo) => {
  await buyMonthByCard(page, testInfo, login);
  await open(page, "/billing", testInfo);
  await expect(page.getByRole("link", { name: "Request refund" })).toHaveCount(1);
  await advanceServerClock(page, 31);
  await open(page, "/billing", testInfo);
  await expect(page.getByRole("row").filter({ hasText: "1 Month" }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Request refund" })).toHaveCount(0);
});

// Notices by the product's clock (issue 20, decision 029): the reminder 7 days before a monthly renewal, then the renewal's receipt.
test("a monthly plan's renewal reminder comes 7 days ahead, and its renewal sends a receipt", async ({ page, request, login }, testInfo) => {
  const user = await buyMonthByCard(page, testInfo, login);
  const first = await latestMail(request, user.email, /^Your VPN receipt$/);
  await advanceServerClock(page, 25);
  const reminder = await latestMail(request, user.email, /^Your VPN plan renews soon$/);
  expect(reminder.text).toContain("We will charge $9.99 to Visa ending in 4242.");
  expect(reminder.text).toMatch(/\/billing\n/);
  await advanceServerClock(page, 7);
  const renewal = await latestMail(request, user.email, /^Your VPN receipt$/, first.sentAt);
  expect(renewal.text).toContain("Thank you for your payment of $9.99 for the 1 Month plan.");
});
