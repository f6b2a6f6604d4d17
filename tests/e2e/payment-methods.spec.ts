import { MASTERCARD } from "../support/cards";
import { expectKeyboardModal } from "../support/dialogs";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { buyMonthByCard } from "./refund-support";
import { addCard } from "./saved-card-support";

// The 'Payment Method' tab of /billing (commerce §2, §4, §8), with and without JavaScript.

const TAB = "/billing?tab=payment-method";
const year = (new Date().getUTCFullYear() + 3) % 100;

test("adds a card to an empty list, and it becomes the default", async ({ page, login }, testInfo) => {
  await login();
  await open(page, TAB, testInfo);
  await expect(page.getByText("No payment methods yet")).toBeVisible();
  if (hasJavaScript(testInfo)) {
    await page.getByRole("button", { name: "Add card", exact: true }).click();
    await expect(page.getByText("Please complete your card details")).toBeVisible();
    await expect(page.getByText("Please enter the cardholder name")).toBeVisible();
    await expect(page.getByText("Please enter the postal code")).toBeVisible();
  }
  await addCard(page, testInfo);
  const card = page.getByRole("listitem", { name: "Visa ending 4242" });
  await expect(card).toBeVisible();
  await expect(card.getByText("Default", { exact: true })).toBeVisible();
  await expect(card.getByRole("img", { name: "Visa" })).toBeVisible();
  await expect(card.getByText("**** **** **** 4242")).toBeVisible();
  await expect(card.getByText(/^[A-Z][a-z]{2} \d{2}, \d{4}$/)).toBeVisible();
  await expect(card.getByRole("link", { name: /^Delete/ })).toHaveCount(0);
  // No card plan renews, so no card pays renewals.
  await expect(page.getByText("Pays your renewals")).toHaveCount(0);
});

test("sets another card as default and deletes the old one after confirming", async ({ page, login }, testInfo) => {
  await login();
  await open(page, TAB, testInfo);
  await addCard(page, testInfo, "First Holder");
  await addCard(page, testInfo, "Second Holder");
  const cards = page.getByRole("listitem", { name: "Visa ending 4242" });
  await expect(cards).toHaveCount(2);
  await page.getByRole("button", { name: "Set Default" }).click();
  await expect(page.getByText("Payment Method Set as Defaut Successfully.")).toBeVisible();
  const old = page.getByRole("listitem").filter({ hasText: "First Holder" });
  await expect(page.getByRole("listitem").filter({ hasText: "Second Holder" }).getByText("Default", { exact: true })).toBeVisible();
  await old.getByRole("link", { name: /^Delete/ }).click();
  const dialog = page.getByRole("dialog", { name: "Delete the Visa ending 4242?" });
  await expect(dialog.getByText("It cannot be used for payments afterwards.")).toBeVisible();
  // Cancel keeps the card; then the deletion is confirmed.
  await dialog.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(cards).toHaveCount(2);
  await old.getByRole("link", { name: /^Delete/ }).click();
  await dialog.getByRole("button", { name: "Yes, delete" }).click();
  await expect(page.getByText("Payment Method Deleted Successfully.")).toBeVisible();
  await expect(cards).toHaveCount(1);
});

test("with JavaScript the delete confirmation is a modal: focus stays in it, Escape cancels and focus returns", async ({ page, login }, testInfo) => {
  test.skip(!hasJavaScript(testInfo), "a modal needs JavaScript; without it the dialog is a page state");
  const user = await login();
  await insertCards(user.email, 2);
  await open(page, TAB, testInfo);
  const opener = page.getByRole("link", { name: "Delete Mastercard ending 1001" });
  await opener.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/delete=/);
  await expectKeyboardModal(page, page.getByRole("dialog", { name: "Delete the Mastercard ending 1001?" }), { opener });
  await expect(page).not.toHaveURL(/delete=/);
  await expect(page.getByRole("list", { name: "Saved cards" }).getByRole("listitem")).toHaveCount(2);
});

/** What the database and the sandbox's Stripe hold: the default card, the card that pays the subscription, the customer's invoice card. */
async function renewalCards(email: string) {
  return withDatabase(async (db) => {
    const user = await db.selectFrom("users").select(["id", "stripe_customer_id"]).where("email", "=", email).executeTakeFirstOrThrow();
    const defaults = await db.selectFrom("payment_methods").select("card_last4").where("user_id", "=", user.id).where("is_default", "=", 1).execute();
    const subscription = await db.selectFrom("subscriptions").select("stripe_sub_id").where("user_id", "=", user.id).executeTakeFirstOrThrow();
    const stripeObject = async (id: string) => {
      const row = await db.selectFrom("stripe_sandbox_objects").select("data").where("id", "=", id).executeTakeFirstOrThrow();
      return JSON.parse(row.data) as Record<string, unknown>;
    };
    const last4 = async (pm: unknown) => {
      const card = await db.selectFrom("payment_methods").select("card_last4").where("payment_method_id", "=", String(pm)).executeTakeFirst();
      return card?.card_last4 ?? null;
    };
    const sub = await stripeObject(`subscription:${subscription.stripe_sub_id}`);
    const customer = await stripeObject(`customer:${user.stripe_customer_id}`);
    return {
      defaults: defaults.map((d) => d.card_last4),
      subscription: await last4(sub.default_payment_method),
      customer: await last4((customer.invoice_settings as { default_payment_method: unknown }).default_payment_method),
    };
  });
}

test("the card that pays the renewals says so, and 'Set Default' on another card moves them (here and at Stripe)", async ({ page, login }, testInfo) => {
  const user = await buyMonthByCard(page, testInfo, login);
  await open(page, TAB, testInfo);
  const visa = page.getByRole("listitem", { name: "Visa ending 4242" });
  await expect(visa.getByText("Default", { exact: true })).toBeVisible();
  await expect(visa.getByText("Pays your renewals", { exact: true })).toBeVisible();
  // One setting: the separate 'Card for the subscription' choice is gone.
  await expect(page.getByLabel("Card for the subscription")).toHaveCount(0);

  await addCard(page, testInfo, "Pat Payer", MASTERCARD);
  const master = page.getByRole("listitem", { name: "Mastercard ending 4444" });
  await expect(master.getByText("Pays your renewals")).toHaveCount(0);
  await expect(page.getByText("Your default card pays your 1 Month plan's renewals.", { exact: false })).toBeVisible();
  await master.getByRole("button", { name: "Set Default" }).click();
  await expect(page.getByText("Payment Method Set as Defaut Successfully.")).toBeVisible();
  await expect(master.getByText("Default", { exact: true })).toBeVisible();
  await expect(master.getByText("Pays your renewals", { exact: true })).toBeVisible();
  await expect(visa.getByText("Pays your renewals")).toHaveCount(0);
  await expect(visa.getByRole("button", { name: "Set Default" })).toBeVisible();
  expect(await renewalCards(user.email)).toEqual({ defaults: ["4444"], subscription: "4444", customer: "4444" });
});

test("edits the expiry and the cardholder name", async ({ page, login }, testInfo) => {
  await login();
  await open(page, TAB, testInfo);
  await addCard(page, testInfo);
  await page.getByRole("link", { name: /^Edit/ }).click();
  const form = page.getByRole("form", { name: /^Edit/ });
  await form.getByLabel("Expiry (MM / YY)").fill(`07 / ${year + 1}`);
  await form.getByLabel("Cardholder name").fill("Robin Renamed");
  await form.getByRole("button", { name: "Save card details" }).click();
  await expect(page.getByText("Payment Method Updated Successfully.")).toBeVisible();
  await expect(page.getByText(`07/${year + 1}`)).toBeVisible();
  await expect(page.getByText("Robin Renamed")).toBeVisible();
});

/** Saved cards written straight to the database (amex and mastercard, ending 1000, 1001, ...; the first the default). */
async function insertCards(email: string, count: number) {
  await withDatabase(async (db) => {
    const row = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    for (let i = 0; i < count; i++) {
      const at = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
      await db
        .insertInto("payment_methods")
        .values({
          user_id: row.id,
          payment_method_id: `pm_e2e_${email}_${i}`,
          payment_gateway: "stripe",
          card_brand: i % 2 ? "mastercard" : "amex",
          card_last4: String(1000 + i),
          card_exp_month: 12,
          card_exp_year: 2040,
          billing_name: null,
          billing_postal: null,
          wallet_payment_type: "card",
          is_default: i === 0 ? 1 : 0,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
  });
}

test("pages seven cards six at a time", async ({ page, login }, testInfo) => {
  const user = await login();
  await insertCards(user.email, 7);
  await open(page, TAB, testInfo);
  await expect(page.getByRole("list", { name: "Saved cards" }).getByRole("listitem")).toHaveCount(6);
  await expect(page.getByRole("img", { name: "Mastercard" }).first()).toBeVisible();
  await expect(page.getByRole("img", { name: "American Express" }).first()).toBeVisible();
  await page.getByRole("navigation", { name: "Saved cards pages" }).getByRole("link", { name: "Page 2" }).click();
  await expect(page.getByRole("list", { name: "Saved cards" }).getByRole("listitem")).toHaveCount(1);
  await expect(page.getByText("Jan 01, 2026")).toHaveCount(0);
});
