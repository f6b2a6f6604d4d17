import { advanceServerClock } from "../support/clock";
import { open } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { newPayPalCustomer, subscriptionsOf, transactionsOf } from "./paypal-support";

// A PayPal subscription renews when the test clock passes its billing date: the stand-in charges it and
// sends PAYMENT.SALE.COMPLETED, and the plan is extended (issue 23). It moves the server's business time,
// so it runs in the clock projects (playwright.config.ts: one worker there, never beside clock.spec.ts).
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
