import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { createUser, hasJavaScript, latestMail, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// The portal in the customer's language (issue 36): a German browser (Accept-Language: de) reads the
// sign-in page in German, signs in, buys a plan and gets its receipt email in German; the footer's
// 'Language' select switches to French, which survives a new visit and becomes the account's language.
// Without JavaScript and with it. The 1-year plan is id 5.

/** The language the page says it is in. */
const pageLanguage = (page: Page) => page.locator("html").getAttribute("lang");

/** The footer's Language form: without JavaScript 'Change' sends it; with it, choosing does. */
async function chooseLanguage(page: Page, testInfo: TestInfo, label: string, language: string, button: string) {
  const footer = page.getByRole("region", { name: label });
  await footer.getByLabel(label).selectOption(language);
  if (!hasJavaScript(testInfo)) await footer.getByRole("button", { name: button }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", language);
}

// Each test's browser has its own language: a context of its own (a reused one keeps the last test's locale).
test.use({ reuseContext: false });

test.describe("a German browser", () => {
  test.use({ locale: "de-DE" });

  test("reads the sign-in page in German, signs in, buys a plan and gets the receipt email in German", async ({ page, request }, testInfo) => {
    const user = await createUser({ emailPrefix: "deutsch" });
    await open(page, "/login", testInfo);
    expect(await pageLanguage(page)).toBe("de");
    await expect(page).toHaveTitle("Anmelden | VPN-Konto");
    await expect(page.getByRole("link", { name: "Anmelden" }).or(page.getByRole("tab", { name: "Anmelden" })).first()).toBeVisible();
    await expect(page.getByText("Sign In", { exact: true })).toHaveCount(0);

    await page.getByLabel("E-Mail").fill(user.email);
    await page.getByLabel("Passwort").fill(user.password);
    await page.getByRole("button", { name: "Weiter", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Willkommen!" })).toBeVisible();
    // The account had no language of its own: it takes the one it is used in, which its emails then use.
    await expect.poll(() => withDatabase((db) => db.selectFrom("users").select("language").where("email", "=", user.email).executeTakeFirst())).toEqual({ language: "de" });

    await open(page, "/subscription/payment/5", testInfo);
    await expect(page.getByRole("heading", { name: "Zahlungsmethode wählen" })).toBeVisible();
    // A German browser is taxed for Germany by default (issue 35): the order summary says so in German.
    await expect(page.getByRole("complementary", { name: "Bestellübersicht" })).toContainText("USt. 19 % (Deutschland)");
    if (!hasJavaScript(testInfo)) {
      // The hosted payment page is the gateway's (Stripe's, in its sandbox stand-in).
      await page.getByRole("button", { name: "Weiter zur sicheren Zahlungsseite" }).click();
      await fillCard(page, { number: "Card number", expiry: "Expiry (MM / YY)", cvc: "CVC", name: "Cardholder name", postal: "Postal code" });
      await page.getByRole("button", { name: /^Pay / }).click();
    } else {
      await fillCard(page, { number: "Kartennummer", expiry: "Gültig bis (MM / JJ)", cvc: "Prüfnummer (CVC)", name: "Name des Karteninhabers", postal: "Postleitzahl" });
      await page.getByRole("button", { name: /bezahlen$/ }).click();
    }
    await expect(page.getByRole("dialog", { name: "Zahlung erfolgreich!" })).toBeVisible();

    const mail = await latestMail(request, user.email, /^Ihre VPN-Zahlungsbestätigung$/);
    expect(mail.text).toContain("Vielen Dank für Ihre Zahlung von 85,54");
    expect(mail.text).toMatch(/Mit dieser Zahlung erhalten Sie 14 Monate/);
    expect(mail.text).toContain("USt. 19 % (Deutschland)");
    expect(mail.text).not.toMatch(/Thank you|your payment/i);
  });
});

test.describe("the footer's Language select", () => {
  test("switches to French, and the choice survives a new visit", async ({ page, context }, testInfo) => {
    await open(page, "/pricing", testInfo);
    expect(await pageLanguage(page)).toBe("en");
    await chooseLanguage(page, testInfo, "Language", "fr", "Change");
    await expect(page).toHaveURL(/\/pricing$/);
    await expect(page.getByRole("region", { name: "Langue" }).getByLabel("Langue")).toHaveValue("fr");

    const again = await context.newPage();
    await again.goto("/login");
    expect(await pageLanguage(again)).toBe("fr");
    await expect(again.getByRole("region", { name: "Langue" }).getByLabel("Langue")).toHaveValue("fr");
    await again.close();

    // Back to English the same way.
    await chooseLanguage(page, testInfo, "Langue", "en", "Changer");
  });

  test("signed in, saves the account's language, which the next sign-in brings back", async ({ page, login, context }, testInfo) => {
    const user = await login();
    await open(page, "/billing", testInfo);
    await chooseLanguage(page, testInfo, "Language", "es", "Change");
    await expect(page.getByRole("heading", { name: "Facturación", level: 1 })).toBeVisible();
    await expect.poll(() => withDatabase((db) => db.selectFrom("users").select("language").where("email", "=", user.email).executeTakeFirst())).toEqual({ language: "es" });

    // A browser that never chose: after signing in, the account's language is the page's.
    await context.clearCookies();
    await open(page, "/login", testInfo);
    expect(await pageLanguage(page)).toBe("en");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "es");
  });
});

async function fillCard(page: Page, labels: { number: string; expiry: string; cvc: string; name: string; postal: string }) {
  await page.getByLabel(labels.number).fill(GOOD_CARD);
  await page.getByLabel(labels.expiry).fill("12 / 49");
  await page.getByLabel(labels.cvc).fill("123");
  await page.getByLabel(labels.name).fill("Erika Mustermann");
  await page.getByLabel(labels.postal).fill("10115");
}
