import { advanceServerClock } from "../support/clock";
import { latestMail, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { answerAtPayPal, continueToPayPal, newPayPalCustomer, subscriptionsOf, transactionsOf } from "./paypal-support";

// A PayPal subscription renews when the test clock passes its billing date: the stand-in charges it and
// sends PAYMENT.SALE.COMPLETED, and the plan is extended (issue 23). It moves the server's business time,
// so it runs in the clock project (playwright.config.ts: its own server, one worker, never beside clock.spec.ts).
test.describe.configure({ mode: "serial" });

test("a PayPal subscription renews when the clock passes a month, with a second PayPal transaction", async ({ page, login }, testInfo) => {
  const user = await newPayPalCustomer(page, testInfo, login, 1);
  await advanceServerClock(page, 32);
  await expect
    .poll(() => transactionsOf(user.email), { message: "the renewal PayPal collected is recorded" })
    .toEqual([
      { status: "paid", plan_id: 1, payment_gateway: "paypal" },
      { status: "paid", plan_id: 1, payment_gateway: "paypal" },
    ]);
  expect((await subscriptionsOf(user.email))[0]).toMatchObject({ subscription_by: "paypal", subs_status: "subscription_started" });
  await open(page, "/", testInfo);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
  await open(page, "/billing", testInfo);
  await expect(page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("cell", { name: "PayPal", exact: true })).toHaveCount(2);
});

test("a renewal PayPal cannot collect follows the dunning rules: 'Your VPN payment failed', and a grace period", async ({ page, request, login }, testInfo) => {
  const user = await login();
  await open(page, "/subscription/payment/1", testInfo);
  await continueToPayPal(page);
  // The sandbox buyer's card pays the first payment and fails every renewal.
  await answerAtPayPal(page, "Approve", "Card that fails renewals");
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
  await advanceServerClock(page, 32);
  const mail = await latestMail(request, user.email, /Your VPN payment failed/);
  expect(mail.text).toMatch(/PayPal/);
  expect((await transactionsOf(user.email)).filter((t) => t.status === "paid")).toHaveLength(1);
  // Past due, with a grace period (decision 027), while PayPal retries the payment itself.
  const row = await withDatabase((db) =>
    db
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select(["subscriptions.past_due_since", "subscriptions.grace_until", "subscriptions.sub_exp_date"])
      .where("users.email", "=", user.email)
      .executeTakeFirstOrThrow(),
  );
  expect(row.past_due_since).not.toBeNull();
  expect(Date.parse(row.grace_until!)).toBeGreaterThan(Date.parse(row.sub_exp_date));
  // The plan is kept through the grace period, and the banner says where to fix it: at PayPal, which retries.
  await open(page, "/", testInfo);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Premium", { exact: true })).toBeVisible();
  const banner = page.getByRole("alert").filter({ has: page.getByRole("heading", { name: "Your last payment failed." }) });
  await expect(banner).toContainText("PayPal could not collect $9.99 and will try again.");
  await expect(banner.getByRole("link", { name: "Check your PayPal funding" })).toHaveAttribute("href", "https://www.paypal.com/myaccount/autopay/");
  await expect(banner.getByRole("link", { name: "Pay now" })).toHaveCount(0);
  // Nothing to pay on the portal's pay page: it sends the customer to Billing with the reason.
  await open(page, "/billing/pay", testInfo);
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByText("PayPal collects this renewal itself: check your PayPal funding, and PayPal will try again.").first()).toBeVisible();
});
