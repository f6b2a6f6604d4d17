import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { expectKeyboardModal } from "../support/dialogs";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, type Login, test } from "../support/fixtures";

// Google Pay and Apple Pay at checkout (commerce §2, §8) and the express-checkout test page (/demo),
// against the sandbox's stand-in wallet sheet. Wallets are JavaScript-only (DESIGN §3): without
// JavaScript the panels are absent and the card panel's hosted payment page still works.

const CHECKOUT = "/subscription/payment/1";

async function signedInAtCheckout(page: Page, testInfo: TestInfo, login: Login, path = CHECKOUT) {
  const user = await login();
  await open(page, path, testInfo);
  await expect(page.getByRole("heading", { name: "Confirm your email" })).toBeVisible();
  if (hasJavaScript(testInfo)) await page.locator("html[data-hydrated]").waitFor();
  return user;
}

function panel(page: Page, name: "Apple Pay" | "Google Pay") {
  return page.locator("details.accordion-item").filter({ has: page.locator("summary", { hasText: new RegExp(`^${name}$`) }) });
}

/** Opens the wallet's panel and its stand-in sheet. */
async function openSheet(page: Page, name: "Apple Pay" | "Google Pay") {
  const item = panel(page, name);
  await item.locator("summary").click();
  await item.getByRole("button", { name: `Pay with ${name}` }).click();
  const sheet = page.getByRole("dialog", { name: `${name} (sandbox)` });
  await expect(sheet).toBeVisible();
  return { item, sheet };
}

async function transactionsOf(email: string) {
  return withDatabase((db) =>
    db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .select(["transactions.status", "transactions.wallet_payment_type", "transactions.plan_id"])
      .where("users.email", "=", email)
      .orderBy("transactions.id")
      .execute(),
  );
}

test.describe("wallets at checkout, with JavaScript", () => {
  test.beforeEach(({}, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "Google Pay and Apple Pay need JavaScript");
  });

  test("Google Pay: Approve pays and shows 'Payment Successful!'", async ({ page, login }, testInfo) => {
    const user = await signedInAtCheckout(page, testInfo, login);
    const { sheet } = await openSheet(page, "Google Pay");
    await expect(sheet.getByText("VPN 1 Month")).toBeVisible();
    await expect(sheet.getByText("$9.99").first()).toBeVisible();
    await sheet.getByRole("button", { name: "Approve" }).click();
    const paid = page.getByRole("dialog", { name: "Payment Successful!" });
    await expect(paid).toBeVisible();
    await expect(paid.getByText(/redirect to your account in \d+ seconds/)).toBeVisible();
    expect(await transactionsOf(user.email)).toEqual([{ status: "paid", wallet_payment_type: "googlepay", plan_id: 1 }]);
  });

  test("Google Pay: Cancel says so, charges nothing, and the button works again", async ({ page, login }, testInfo) => {
    const user = await signedInAtCheckout(page, testInfo, login);
    const { item, sheet } = await openSheet(page, "Google Pay");
    await sheet.getByRole("button", { name: "Cancel" }).click();
    await expect(sheet).toBeHidden();
    await expect(page.getByRole("status").filter({ hasText: "You cancelled Google Pay before completing the purchase." })).toBeVisible();
    await expect(item.getByRole("button", { name: "Pay with Google Pay" })).toBeEnabled();
    expect(await transactionsOf(user.email)).toEqual([]);
  });

  test("the sheet is a modal: focus stays in it, Escape is its Cancel and focus returns to the wallet's button", async ({ page, login }, testInfo) => {
    const user = await signedInAtCheckout(page, testInfo, login);
    const item = panel(page, "Google Pay");
    await item.locator("summary").click();
    const opener = item.getByRole("button", { name: "Pay with Google Pay" });
    await opener.focus();
    await page.keyboard.press("Enter");
    const sheet = page.getByRole("dialog", { name: "Google Pay (sandbox)" });
    await expect(sheet.getByRole("button", { name: "Approve" })).toBeFocused();
    await expectKeyboardModal(page, sheet, { opener });
    await expect(page.getByRole("status").filter({ hasText: "You cancelled Google Pay before completing the purchase." })).toBeVisible();
    expect(await transactionsOf(user.email)).toEqual([]);
  });

  test("Google Pay: Decline shows the bank's refusal inline and as a toast; nothing is bought", async ({ page, login }, testInfo) => {
    const user = await signedInAtCheckout(page, testInfo, login);
    const { item, sheet } = await openSheet(page, "Google Pay");
    await sheet.getByRole("button", { name: "Decline" }).click();
    const declined = "Your bank declined this Google Pay charge. Please use another payment option.";
    await expect(item.getByRole("alert").filter({ hasText: declined }).first()).toBeVisible();
    await expect(page.locator(".toast").filter({ hasText: declined })).toBeVisible();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toHaveCount(0);
    expect(await transactionsOf(user.email)).toEqual([{ status: "Payment failed", wallet_payment_type: "googlepay", plan_id: 1 }]);

    // Then approving (a new sheet, a new idempotency key) pays.
    await item.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Approve" }).click();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
  });

  test("Google Pay: a card the wallet cannot authorize, and a lost connection, each say so", async ({ page, login }, testInfo) => {
    await signedInAtCheckout(page, testInfo, login);
    const { item, sheet } = await openSheet(page, "Google Pay");
    await sheet.getByRole("button", { name: "Card not authorized" }).click();
    await expect(item.getByRole("alert").filter({ hasText: "Google Pay could not authorize your card. Try a different card or method." }).first()).toBeVisible();
    await item.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Network error" }).click();
    await expect(
      item.getByRole("alert").filter({ hasText: "Network issue — please check your connection and try Google Pay again." }).first(),
    ).toBeVisible();
  });

  test("Apple Pay: the sheet asks for the monthly renewal; Approve pays (recorded as applepay)", async ({ page, login }, testInfo) => {
    const user = await signedInAtCheckout(page, testInfo, login);
    const { sheet } = await openSheet(page, "Apple Pay");
    await expect(sheet.getByText("Recurring payment")).toBeVisible();
    await expect(sheet.getByText("$9.99 every month")).toBeVisible();
    await sheet.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
    expect(await transactionsOf(user.email)).toEqual([{ status: "paid", wallet_payment_type: "applepay", plan_id: 1 }]);
  });

  test("wallets that are not on the device show their notices instead of a button", async ({ page, login }, testInfo) => {
    await signedInAtCheckout(page, testInfo, login, `${CHECKOUT}?wallet=unavailable`);
    const apple = panel(page, "Apple Pay");
    await apple.locator("summary").click();
    await expect(apple.getByText("Apple Pay is not available on your device. Please use a different payment method or device.")).toBeVisible();
    await expect(apple.getByRole("button", { name: "Pay with Apple Pay" })).toHaveCount(0);
    const google = panel(page, "Google Pay");
    await google.locator("summary").click();
    await expect(google.getByText("Google Pay is not available in this browser or device.")).toBeVisible();

    await open(page, `${CHECKOUT}?wallet=android`, testInfo);
    await panel(page, "Apple Pay").locator("summary").click();
    await expect(page.getByText("Apple Pay isn’t supported on Android devices. Please use Google Pay or another payment method.")).toBeVisible();
  });

  test.describe("on an Android phone", () => {
    test.use({ userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36" });
    test("Apple Pay names Android: the API read the device from the request (the browser parses no User-Agent)", async ({ page, login }, testInfo) => {
      await signedInAtCheckout(page, testInfo, login);
      await panel(page, "Apple Pay").locator("summary").click();
      await expect(page.getByText("Apple Pay isn’t supported on Android devices. Please use Google Pay or another payment method.")).toBeVisible();
      await expect(page.getByRole("button", { name: "Pay with Apple Pay" })).toHaveCount(0);
    });
  });

  test("a visitor sees the wallet panels but verifies the email first", async ({ page }, testInfo) => {
    await open(page, CHECKOUT, testInfo);
    const google = panel(page, "Google Pay");
    await google.locator("summary").click();
    await expect(google.getByText("Enter and verify your email above to pay with Google Pay.")).toBeVisible();
    // The guarantee and the terms are said once, before every way to pay, not again in each panel.
    const methods = page.getByRole("region", { name: "Choose a payment method" });
    await expect(methods.getByText("30-Day Money-Back Guarantee", { exact: false })).toHaveCount(1);
    await expect(google.getByText("30-Day Money-Back Guarantee", { exact: false })).toHaveCount(0);
  });
});

test.describe("wallets at checkout, without JavaScript", () => {
  test("the wallet panels are absent and the card panel's hosted page still pays", { tag: "@once" }, async ({ page, login }, testInfo) => {
    const user = await signedInAtCheckout(page, testInfo, login);
    await expect(page.locator("summary", { hasText: /^(Apple|Google) Pay$/ })).toHaveCount(0);
    await expect(page.locator("summary", { hasText: /^Card$/ })).toHaveCount(1);
    await page.getByRole("button", { name: "Continue to secure payment page" }).click();
    await page.getByLabel("Card number").fill(GOOD_CARD);
    await page.getByLabel("Expiry (MM / YY)").fill(`12 / ${(new Date().getUTCFullYear() + 4) % 100}`);
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill("Pat Payer");
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
    expect(await transactionsOf(user.email)).toEqual([{ status: "paid", wallet_payment_type: "card", plan_id: 1 }]);
  });
});

test.describe("/demo, the express-checkout test page", () => {
  test("with JavaScript: 5.99 monthly; Approve shows success without a charge; Cancel and Decline say so", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "wallets need JavaScript");
    const response = await open(page, "/demo", testInfo);
    expect(response?.headers()["cache-control"]).toBe("private, no-store");
    await expect(page.getByRole("heading", { name: "Express checkout test" })).toBeVisible();
    await expect(page.getByText("Apple Pay and Google Pay need JavaScript", { exact: false })).toHaveCount(0);

    await page.getByRole("button", { name: "Pay with Apple Pay" }).click();
    const sheet = page.getByRole("dialog", { name: "Apple Pay (sandbox)" });
    await expect(sheet.getByText("$5.99 every month")).toBeVisible();
    await sheet.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByRole("status").filter({ hasText: /Apple Pay approved the test payment of \$5\.99 .*No charge was made\./ }).first()).toBeVisible();

    await page.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("status").filter({ hasText: "You cancelled Google Pay before completing the purchase." })).toBeVisible();

    await page.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Decline" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Invalid payment details" }).first()).toBeVisible();

    await page.getByRole("button", { name: "Pay with Google Pay" }).click();
    await page.getByRole("dialog", { name: "Google Pay (sandbox)" }).getByRole("button", { name: "Payment method error" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Failed to create payment method" }).first()).toBeVisible();
  });

  test("without JavaScript it says that wallets need JavaScript", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/demo", testInfo);
    await expect(page.getByRole("heading", { name: "Express checkout test" })).toBeVisible();
    await expect(page.getByText("Apple Pay and Google Pay need JavaScript", { exact: false })).toBeVisible();
    await expect(page.getByRole("button", { name: /^Pay with/ })).toHaveCount(0);
  });

  test("signed in, it is inside the account menu", { tag: "@once" }, async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/demo", testInfo);
    await expect(page.getByRole("heading", { name: "Express checkout test" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.getByText(user.email)).toBeVisible();
  });
});
