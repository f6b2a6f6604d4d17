import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { fillSandboxCardAndPay, hasJavaScript, latestMail, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { PLANS } from "../../api/payments/catalog";
import { renewalOf } from "../../api/payments/renewal-rule";
import { answerAtPayPal, newPayPalCustomer } from "./paypal-support";

// Changing plan instead of buying twice (issue 20, docs/decisions/028), with and without JavaScript.

const card = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true });

async function subscribeMonthly(page: Page, testInfo: TestInfo, planId = 1) {
  await open(page, `/subscription/payment/${planId}`, testInfo);
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await fillSandboxCardAndPay(page, GOOD_CARD);
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}

test("a subscriber sees 'Current Plan', changes to a longer plan now and to a shorter one at renewal", async ({ page, login }, testInfo) => {
  await login();
  await subscribeMonthly(page, testInfo);

  await open(page, "/pricing?tab=monthly", testInfo);
  await expect(card(page, "1 Month").getByRole("button", { name: "Current Plan" })).toBeDisabled();
  await card(page, "3 Months").getByRole("link", { name: "Change to this plan" }).click();

  // A longer term: what is paid now, 'Change plan', then the success state.
  await expect(page.getByRole("heading", { name: "Change from 1 Month to 3 Months" })).toBeVisible();
  const amount = page.locator(".plan-change__amount");
  await expect(amount).toHaveText(/^\$\d+\.\d{2}$/);
  await expect(page.getByText(/You pay \$\d+\.\d{2} now/)).toBeVisible();
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your plan was changed to 3 Months." })).toBeVisible();

  await open(page, "/pricing?tab=monthly", testInfo);
  await expect(card(page, "3 Months").getByRole("button", { name: "Current Plan" })).toBeDisabled();
  await expect(card(page, "1 Month").getByRole("link", { name: "Change to this plan" })).toBeVisible();

  // A shorter term: takes effect at the renewal, nothing charged now; the pending change can be dropped.
  await card(page, "1 Month").getByRole("link", { name: "Change to this plan" }).click();
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Month" })).toBeVisible();
  await expect(page.getByText(/Your plan changes to 1 Month on \d{2} \w+, \d{4}, at your next renewal\. Nothing is charged now/)).toBeVisible();
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Your plan changes to 1 Month on \d{2} \w+, \d{4}\./ })).toBeVisible();
  await open(page, "/pricing?tab=monthly", testInfo);
  await expect(card(page, "3 Months").getByText(/^Changes to 1 Month on \d{2} \w+, \d{4}$/)).toBeVisible();
  await open(page, "/subscription/payment/1", testInfo);
  await page.getByRole("button", { name: "Keep current plan" }).click();
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Month" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Keep current plan" })).toHaveCount(0);
});

test("the 5-year plan says, before paying, that it ends the current plan's auto-renewal", { tag: "@once" }, async ({ page, login }, testInfo) => {
  await login();
  await subscribeMonthly(page, testInfo);
  await open(page, "/subscription/payment/7", testInfo);
  await expect(page.getByText(/turns off the auto-renewal of your 1 Month plan.*Your 5-year access starts today\./)).toBeVisible();
});

test("the billing page shows a pending change to a shorter plan, and 'Keep current plan' there drops it", async ({ page, login }, testInfo) => {
  await login();
  await subscribeMonthly(page, testInfo, 2);
  await open(page, "/subscription/payment/1", testInfo);
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Month" })).toBeVisible();
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Your plan changes to 1 Month on \d{2} \w+, \d{4}\./ })).toBeVisible();

  await open(page, "/billing", testInfo);
  const subscription = page.getByRole("region", { name: "Subscription" });
  const sentence = subscription.getByText(/^Your plan changes to 1 Month on \d{2} \w+, \d{4}\.$/);
  await expect(sentence).toBeVisible();
  await subscription.getByRole("button", { name: "Keep current plan" }).click();
  await expect(page.getByText("Your current plan stays. The pending change was cancelled.")).toBeVisible();
  await expect(sentence).toHaveCount(0);
  await expect(subscription.getByRole("button", { name: "Keep current plan" })).toHaveCount(0);
});

// Issue 32: a change buys the new plan's card, and the change page, its result and the email state the same
// three figures (charged now, new end date, next renewal), as the API computes them (docs/decisions/051).

/** 'DD MMMM, Y', e.g. '05 March, 2027' (UTC). */
function longDate(iso: string): string {
  const d = new Date(iso);
  return `${String(d.getUTCDate()).padStart(2, "0")} ${d.toLocaleString("en-US", { month: "long", timeZone: "UTC" })}, ${d.getUTCFullYear()}`;
}

/** `months` calendar months later, on the last day of the month when it is shorter (29 November + 3 months: 28 February). */
function plusMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, Math.min(d.getUTCDate(), lastDay))).toISOString();
}

/** The summary box's three figures (and the plan), as the page shows them. */
async function figures(page: Page) {
  const box = page.getByRole("complementary", { name: "Plan change summary" });
  await expect(box).toBeVisible();
  const value = (term: string) => box.locator("div").filter({ has: page.getByText(term, { exact: true }) }).locator("dd").innerText();
  return { plan: await value("New plan"), chargedNow: await value("Charged now"), newEndDate: await value("New end date"), nextRenewal: await value("Next renewal") };
}

function subscriptionOf(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select(["subscriptions.plan_id", "subscriptions.sub_exp_date", "subscriptions.pending_plan_id"])
      .where("users.email", "=", email)
      .orderBy("subscriptions.id", "desc")
      .executeTakeFirstOrThrow(),
  );
}

function lastPaymentAt(email: string) {
  return withDatabase(async (db) => {
    const row = await db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .select("transactions.created_at")
      .where("users.email", "=", email)
      .orderBy("transactions.id", "desc")
      .executeTakeFirstOrThrow();
    return row.created_at;
  });
}

test("3 Months to 1 Year by card: 14 months, and the page, the result and the email give the same three figures", async ({ page, login, request }, testInfo) => {
  const user = await login();
  await subscribeMonthly(page, testInfo, 2);

  await open(page, "/pricing?tab=yearly", testInfo);
  await card(page, "1 Year").getByRole("link", { name: "Change to this plan" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Change your plan" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Select Plan" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Year" })).toBeVisible();
  const before = await figures(page);
  expect(before.plan).toBe("1 Year");
  expect(before.chargedNow).toMatch(/^\$\d+\.\d{2}$/);
  expect(before.nextRenewal).toBe(`$71.88 on ${before.newEndDate}`);

  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Your plan was changed to 1 Year." })).toBeVisible();
  expect(await figures(page)).toEqual(before);

  // Bought: the 1 Year card's 12 months and 2 free, from the change.
  const changedAt = await lastPaymentAt(user.email);
  const expectedEnd = longDate(plusMonths(changedAt, 14));
  expect(before.newEndDate).toBe(expectedEnd);
  const row = await subscriptionOf(user.email);
  expect(row.plan_id).toBe(5);
  expect(longDate(row.sub_exp_date)).toBe(expectedEnd);

  const mail = await latestMail(request, user.email, /^Your VPN plan change$/);
  expect(mail.text).toContain(`Charged now: ${before.chargedNow}`);
  expect(mail.text).toContain(`New end date: ${before.newEndDate}`);
  expect(mail.text).toContain(`Next renewal: ${before.nextRenewal}`);
});

// And from the monthly plan to every longer plan that renews, by card: each change buys its card's months, free
// months included, and states the renewal its plan has. Without JavaScript only (issue 31): with it, the change
// takes the same path whatever the plan, which the tests above run to a plan with free months and to one without;
// the figures are the API's, the same in both modes.
const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const dollarsToCents = (text: string) => Math.round(Number(text.replace(/[$,]/g, "")) * 100);
for (const to of PLANS.filter((plan) => plan.billing_type === "recurring" && plan.duration_months! > 1)) {
  const months = to.duration_months! + to.extra_months!;
  test(`1 Month to ${to.title} by card: ${months} months, and the page, the result and the email agree`, { tag: "@once" }, async ({ page, login, request }, testInfo) => {
    const user = await login();
    await subscribeMonthly(page, testInfo, 1);

    await open(page, `/subscription/payment/${to.id}`, testInfo);
    await expect(page.getByRole("heading", { name: `Change from 1 Month to ${to.title}` })).toBeVisible();
    const before = await figures(page);
    expect(before.plan).toBe(to.title);
    // What is charged now is the new card's price less the unused part of the month paid (Stripe's preview).
    const charged = dollarsToCents(before.chargedNow);
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThanOrEqual(to.discounted_price_cents!);
    const renewal = renewalOf(to as Parameters<typeof renewalOf>[0], "card");
    if (!renewal.renews) throw new Error(`${to.title} should renew by card`);
    expect(before.nextRenewal).toBe(`${usd(renewal.priceCents)} on ${before.newEndDate}`);

    await page.getByRole("button", { name: "Change plan" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Your plan was changed to ${to.title}.` })).toBeVisible();
    expect(await figures(page)).toEqual(before);

    const expectedEnd = longDate(plusMonths(await lastPaymentAt(user.email), months));
    expect(before.newEndDate).toBe(expectedEnd);
    const row = await subscriptionOf(user.email);
    expect(row.plan_id).toBe(to.id);
    expect(longDate(row.sub_exp_date)).toBe(expectedEnd);

    const mail = await latestMail(request, user.email, /^Your VPN plan change$/);
    expect(mail.text).toContain(`Charged now: ${before.chargedNow}`);
    expect(mail.text).toContain(`New end date: ${before.newEndDate}`);
    expect(mail.text).toContain(`Next renewal: ${before.nextRenewal}`);
  });
}

test("a PayPal subscription changes plan through PayPal's approval, stated with the same three figures", async ({ page, login, request }, testInfo) => {
  const user = await newPayPalCustomer(page, testInfo, login, 2);
  const { sub_exp_date: paidThrough } = await subscriptionOf(user.email);

  await open(page, "/pricing?tab=yearly", testInfo);
  await card(page, "1 Year").getByRole("link", { name: "Change to this plan" }).click();
  await expect(page.getByRole("heading", { name: "Change from 3 Months to 1 Year" })).toBeVisible();
  const before = await figures(page);
  expect(before).toEqual({ plan: "1 Year", chargedNow: "$0.00", newEndDate: longDate(paidThrough), nextRenewal: `$71.88 on ${longDate(paidThrough)}` });

  await page.getByRole("button", { name: "Continue to PayPal" }).click();
  await expect(page).toHaveURL(/\/dev\/paypal\/webapps\/billing\/subscriptions\/update/);
  await expect(page.getByRole("heading", { name: "Change your subscription (sandbox)" })).toBeVisible();
  await answerAtPayPal(page, "Approve");

  await expect(page).toHaveURL(/\/subscription\/payment\/5\?changed=/);
  await expect(page.getByRole("status").filter({ hasText: /^Your plan changes to 1 Year on \d{2} \w+, \d{4}\.$/ })).toBeVisible();
  expect(await figures(page)).toEqual(before);
  expect(await subscriptionOf(user.email)).toMatchObject({ plan_id: 2, pending_plan_id: 5 });

  const mail = await latestMail(request, user.email, /^Your VPN plan change$/);
  expect(mail.text).toContain("Charged now: $0.00");
  expect(mail.text).toContain(`New end date: ${before.newEndDate}`);
  expect(mail.text).toContain(`Next renewal: ${before.nextRenewal}`);
});
