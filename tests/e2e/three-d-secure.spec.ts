import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD, THREE_DS_ALWAYS_CARD as AUTH_ALWAYS, THREE_DS_CARD as AUTH_ONCE } from "../support/cards";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// 3-D Secure at checkout and on 'Add card' (docs/decisions/030), with and without JavaScript. Without
// it the browser goes to the sandbox's challenge page and back; with it the challenge is a dialog on
// the page. The sandbox's test cards: 3155 asks once, 3184 every time.

const FAILED = "We are unable to authenticate your payment method. Please choose a different payment method and try again.";
const year = (new Date().getUTCFullYear() + 4) % 100;

async function fillCard(page: Page, number: string) {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry (MM / YY)").first().fill(`12 / ${year}`);
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").last().fill("Pat Payer");
  await page.getByLabel("Postal code").fill("10115");
}

/** A new card from the Card panel: the hosted page without JavaScript, the inline form with it. */
async function payByCard(page: Page, testInfo: TestInfo, number: string, hostedAlready = false) {
  if (!hasJavaScript(testInfo) && !hostedAlready) {
    await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  }
  await fillCard(page, number);
  await page.getByRole("button", { name: /^Pay \$/ }).click();
}

/** Answers the bank's challenge: in the page's dialog with JavaScript, on the challenge page without. */
async function authenticate(page: Page, testInfo: TestInfo, answer: "Complete authentication" | "Fail authentication") {
  if (hasJavaScript(testInfo)) {
    const dialog = page.getByRole("dialog", { name: "Confirm the payment with your bank" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("heading", { name: "Confirm the payment with your bank" })).toBeFocused();
    await dialog.locator("iframe").contentFrame().getByRole("button", { name: answer }).click();
    await expect(dialog).toBeHidden();
  } else {
    await page.getByRole("button", { name: answer }).click();
  }
}

async function expectPaid(page: Page) {
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
}

async function paidPlans(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("subscriptions")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select("subscriptions.plan_id")
      .where("users.email", "=", email)
      .where("subscriptions.subs_status", "=", "subscription_started")
      .execute(),
  ).then((rows) => rows.map((row) => row.plan_id).sort());
}

test.describe("3-D Secure", () => {
  test("a new card that asks for authentication pays once the challenge is completed", async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/6", testInfo);
    await payByCard(page, testInfo, AUTH_ONCE);
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);
    expect(await paidPlans(user.email)).toEqual([6]);
  });

  test("on a phone the challenge takes the whole screen, its answer in view (issue 33)", async ({ page, login }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await login();
    await open(page, "/subscription/payment/1", testInfo);
    await payByCard(page, testInfo, AUTH_ONCE);
    const complete = hasJavaScript(testInfo)
      ? page.getByRole("dialog", { name: "Confirm the payment with your bank" }).locator("iframe").contentFrame().getByRole("button", { name: "Complete authentication" })
      : page.getByRole("button", { name: "Complete authentication" });
    await expect(complete).toBeVisible();
    if (hasJavaScript(testInfo)) {
      const dialog = await page.getByRole("dialog", { name: "Confirm the payment with your bank" }).boundingBox();
      expect(dialog).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
    }
    // Its whole button on the screen, not below the fold of the page or of a small frame.
    const button = (await complete.boundingBox())!;
    expect(button.y).toBeGreaterThanOrEqual(0);
    expect(button.y + button.height).toBeLessThanOrEqual(844);
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);
  });

  test("a failed challenge shows why and charges nothing; 4242 then pays", async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/subscription/payment/6", testInfo);
    await payByCard(page, testInfo, AUTH_ONCE);
    await authenticate(page, testInfo, "Fail authentication");
    await expect(page.getByText(FAILED).first()).toBeVisible();
    expect(await paidPlans(user.email)).toEqual([]);
    // Without JavaScript the hosted page is still open, with its form; with it, the inline form.
    await payByCard(page, testInfo, GOOD_CARD, true);
    await expectPaid(page);
    expect(await paidPlans(user.email)).toEqual([6]);
  });

  test("'Pay Now' with a saved card that asks every time goes through the challenge", async ({ page, login }, testInfo) => {
    const user = await login();
    // The 5-year plan first (one payment, never renews): a recurring plan after it is a purchase, not a plan change.
    await open(page, "/subscription/payment/7", testInfo);
    await payByCard(page, testInfo, AUTH_ALWAYS);
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);

    await open(page, "/subscription/payment/5", testInfo);
    const saved = page.getByRole("region", { name: "Pay again with" });
    await expect(saved.getByText("**** **** **** 3184")).toBeVisible();
    await saved.getByRole("button", { name: "Pay Now" }).click();
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);
    expect(await paidPlans(user.email)).toEqual([5, 7]);
  });

  test("'Pay Now' whose challenge fails says why next to the saved cards, and may be tried again at once", async ({ page, login }, testInfo) => {
    const user = await login();
    // The 5-year plan first (one payment, never renews): a recurring plan after it is a purchase, not a plan change.
    await open(page, "/subscription/payment/7", testInfo);
    await payByCard(page, testInfo, AUTH_ALWAYS);
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);

    await open(page, "/subscription/payment/5", testInfo);
    const saved = page.getByRole("region", { name: "Pay again with" });
    await saved.getByRole("button", { name: "Pay Now" }).click();
    await authenticate(page, testInfo, "Fail authentication");
    await expect(saved.getByRole("alert")).toHaveText(FAILED);
    expect(await paidPlans(user.email)).toEqual([7]);
    await saved.getByRole("button", { name: "Pay Now" }).click();
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);
    expect(await paidPlans(user.email)).toEqual([5, 7]);
  });

  test("closing the challenge with Escape abandons it: nothing is charged", async ({ page, login }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "the dialog is JavaScript's");
    const user = await login();
    await open(page, "/subscription/payment/6", testInfo);
    await payByCard(page, testInfo, AUTH_ONCE);
    const dialog = page.getByRole("dialog", { name: "Confirm the payment with your bank" });
    await expect(dialog.getByRole("heading", { name: "Confirm the payment with your bank" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByText(FAILED).first()).toBeVisible();
    expect(await paidPlans(user.email)).toEqual([]);
  });

  test("Google Pay whose card asks for 3-D Secure: the challenge in the dialog, then paid; failed, nothing is charged", async ({ page, login }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "the wallets need JavaScript");
    const user = await login();
    await open(page, "/subscription/payment/1", testInfo);
    const item = page.locator("details.accordion-item").filter({ has: page.locator("summary", { hasText: /^Google Pay$/ }) });
    await item.locator("summary").click();

    await item.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Authenticate (3-D Secure)" }).click();
    await authenticate(page, testInfo, "Fail authentication");
    await expect(page.getByText(FAILED).first()).toBeVisible();
    expect(await paidPlans(user.email)).toEqual([]);

    await item.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Authenticate (3-D Secure)" }).click();
    await authenticate(page, testInfo, "Complete authentication");
    await expectPaid(page);
    expect(await paidPlans(user.email)).toEqual([1]);
  });

  test("Add card with a card that asks for authentication saves it after the challenge", async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/billing?tab=payment-method", testInfo);
    if (!hasJavaScript(testInfo)) {
      await page.getByRole("button", { name: "Add card", exact: true }).click();
      await fillCard(page, AUTH_ONCE);
      await page.getByRole("button", { name: /^Save card/ }).click();
    } else {
      await fillCard(page, AUTH_ONCE);
      await page.getByRole("button", { name: "Add card", exact: true }).click();
    }
    await authenticate(page, testInfo, "Complete authentication");
    await expect(page.getByText("New Payment Method Added Successfully.")).toBeVisible();
    await expect(page.getByRole("listitem", { name: "Visa ending 3155" })).toBeVisible();
  });
});
