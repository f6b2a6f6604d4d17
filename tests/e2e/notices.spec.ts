import { latestMail, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { payWith4242 } from "./refund-support";

// The notices people are owed (docs/decisions/029), as the portal shows them: what the checkout buys
// before and after paying, the receipt in the mailbox, 'Next charge' on the home and the billing page,
// and 'Auto-renewal is off: your plan ends on …' once it is turned off. Without JavaScript and with it.

const LONG_DATE = /\d{2} [A-Z][a-z]+, \d{4}/;

test.describe("notices", () => {
  test("the checkout's summary names the months, the first term's end and the renewal price", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/subscription/payment/5", testInfo);
    const summary = page.getByRole("complementary", { name: "Order summary" });
    await expect(summary.getByText("This payment buys 14 months (12 months + 2 months free).")).toBeVisible();
    await expect(summary.getByText(new RegExp(`Your first term ends on ${LONG_DATE.source}\\.`))).toBeVisible();
    // What renews depends on the way of paying (the API's quote of each, issue 32): crypto never renews by itself.
    await expect(summary.getByText("Paid by card, Apple Pay, Google Pay or PayPal, it then renews at $71.88 every year, until you turn auto-renewal off.")).toBeVisible();
    await expect(summary.getByText("Paid with crypto, it does not renew: nothing more is charged.")).toBeVisible();

    await open(page, "/subscription/payment/7", testInfo);
    await expect(summary.getByText("This payment buys 60 months.")).toBeVisible();
    await expect(summary.getByText("It does not renew: nothing more is charged.")).toBeVisible();
  });

  test("after paying: the confirmation, the receipt, 'Next charge' on home and billing, then 'Auto-renewal is off'", async ({ page, request, login }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/1", testInfo);
    await payWith4242(page, testInfo);
    const dialog = page.getByRole("dialog", { name: "Payment Successful!" });
    await expect(dialog.getByText("You paid $9.99 for the 1 Month plan: 1 month.")).toBeVisible();
    await expect(dialog.getByText(new RegExp(`Your first term ends on ${LONG_DATE.source}\\. Then it renews at \\$9\\.99 every month`))).toBeVisible();

    const receipt = await latestMail(request, user.email, /^Your VPN receipt$/);
    expect(receipt.text).toContain("Thank you for your payment of $9.99 for the 1 Month plan.");
    expect(receipt.text).toContain("Paid with: Visa ending in 4242.");

    const nextCharge = new RegExp(`Next charge: \\$9\\.99 on ${LONG_DATE.source}, Visa ending in 4242`);
    await open(page, "/", testInfo);
    await expect(page.getByRole("article", { name: "Subscription" }).getByText(nextCharge)).toBeVisible();
    await open(page, "/billing", testInfo);
    const subscription = page.getByRole("region", { name: "Subscription" });
    await expect(subscription.getByText(nextCharge)).toBeVisible();

    await subscription.getByRole("button", { name: "Cancel auto-renewal" }).click();
    await page.getByRole("dialog", { name: "Cancel auto-renewal?" }).getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByText("Auto-renewal updated successfully")).toBeVisible();
    const ends = new RegExp(`Auto-renewal is off: your plan ends on ${LONG_DATE.source}\\.`);
    await expect(subscription.getByText(ends)).toBeVisible();
    await open(page, "/", testInfo);
    await expect(page.getByRole("article", { name: "Subscription" }).getByText(ends)).toBeVisible();
    const confirmation = await latestMail(request, user.email, /^Auto-renewal is off$/);
    expect(confirmation.text).toMatch(/plan: \d{2} \w+, \d{4} at \d{2}:\d{2} UTC\./);
  });
});
