import type { Page } from "@playwright/test";
import { formatLongDate } from "../../app/utils/dates";
import { createPasswordlessUser, enterCode, expectHome, hasJavaScript, latestCode, latestMail, open, submitSignIn, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { authenticatorCode, turnOnTwoFactorThroughApi, wrongAuthenticatorCode } from "./identity-support";
import { buyMonthByCard } from "./refund-support";

// 'Delete account' (issue 12): the home's link, the page that says what happens, the password (or an
// emailed code), then /login with the message; the old credentials fail and the email signs up anew.
// Issue 33: the authentication code when two-factor is on, the paid days lost, the refund offered first,
// the email afterwards. Each test runs without JavaScript and with it.

const DAY_MS = 86_400_000;
const AUTHENTICATION_CODE_REQUIRED = "Please enter the 6-digit authentication code or a recovery code";

const continueButton = (page: Page) => page.getByRole("button", { name: "Continue", exact: true });

async function openDeletePage(page: Page) {
  await expectHome(page);
  await page.getByRole("link", { name: "Delete account" }).click();
  await expect(page).toHaveURL(/\/account\/delete$/);
  await expect(page.getByRole("heading", { name: "Delete account", level: 1 })).toBeVisible();
  for (const consequence of [
    "Auto-renewal of your subscription is cancelled at the payment provider.",
    "Your saved cards are removed from the payment provider.",
    "Every device signed in to your account is signed out.",
    "Your personal data (email, name, password, sign-in connections) is erased.",
    "Your payment records (amounts and dates) are kept without personal data, as the law requires.",
  ]) {
    await expect(page.getByRole("listitem").filter({ hasText: consequence })).toBeVisible();
  }
}

test.describe("account deletion", () => {
  test("delete an account with its password, fail to sign in with it, then sign up again with its email", async ({ page, request, login }, testInfo) => {
    const user = await login();
    await open(page, "/", testInfo);
    await openDeletePage(page);

    const deleteButton = page.getByRole("button", { name: "Delete my account" });
    await deleteButton.click();
    await expect(page.getByText("Please enter your password.")).toBeVisible();
    await page.getByLabel("Password").fill("wrong-password");
    await deleteButton.click();
    await expect(page.getByText("The password is incorrect.")).toBeVisible();
    await expect(page).toHaveURL(/\/account\/delete$/);

    await page.getByLabel("Password").fill(user.password);
    await deleteButton.click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("Your account has been deleted.")).toBeVisible();

    // The old credentials fail.
    await submitSignIn(page, user);
    await expect(page.getByRole("alert").filter({ hasText: "These credentials do not match our records." })).toBeVisible();

    // The email is free: it signs up again as a new account.
    await open(page, "/login?tab=signup", testInfo);
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" }).check();
    await continueButton(page).click();
    await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
    await enterCode(page, await latestCode(request, user.email, /verification code/i));
    await continueButton(page).click();
    await page.getByLabel("Password", { exact: true }).fill("a-strong-password");
    await page.getByLabel("Confirm Password").fill("a-strong-password");
    await page.getByRole("button", { name: "Finish" }).click();
    await expectHome(page);
    await expect(page.getByText("Free", { exact: true })).toBeVisible();

    const rows = await withDatabase((db) =>
      db.selectFrom("users").select(["id", "email", "deleted_at"]).orderBy("id").execute(),
    );
    const sameEmail = rows.filter((row) => row.email === user.email);
    expect(sameEmail).toHaveLength(1);
    expect(sameEmail[0]!.deleted_at).toBeNull();
    expect(rows.some((row) => row.email === `deleted-account-${row.id}` && row.deleted_at)).toBe(true);
  });

  test("an account without a password confirms with an emailed code", async ({ page, request }, testInfo) => {
    const { email } = await createPasswordlessUser();
    // Sign in with an emailed code, as such an account does.
    await open(page, "/get-code", testInfo);
    await page.getByLabel("Email").fill(email);
    await continueButton(page).click();
    await enterCode(page, await latestCode(request, email, /sign-in code/i));
    await continueButton(page).click();
    await openDeletePage(page);

    const sentAfter = new Date().toISOString();
    await page.getByRole("button", { name: "Email me a code" }).click();
    await expect(page.getByText("We have emailed you a code to confirm.")).toBeVisible();
    const code = await latestCode(request, email, /account deletion code/i, sentAfter);

    await page.getByLabel("Verification code").fill(code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await expect(page.getByText("Invalid verification code")).toBeVisible();

    await page.getByLabel("Verification code").fill(code);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("Your account has been deleted.")).toBeVisible();
    const left = await withDatabase((db) => db.selectFrom("users").select("id").where("email", "=", email).execute());
    expect(left).toEqual([]);
  });

  test("with two-factor on, the password and an authentication code delete the account; a missing or wrong code is told next to its field", async ({ page, request, login }, testInfo) => {
    const user = await login();
    const { setupKey } = await turnOnTwoFactorThroughApi(request, user);
    await open(page, "/", testInfo);
    await openDeletePage(page);
    // No plan and no payment: nothing to lose or refund is said.
    await expect(page.getByText(/paid days? of your/)).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Get your money back first" })).toHaveCount(0);
    await expect(page.getByText("Enter your password and an authentication code to confirm.")).toBeVisible();
    const codeField = page.getByLabel("Authentication code");
    await expect(codeField).toHaveAccessibleDescription(/The 6-digit code from your authenticator app, or one of your recovery codes\./);

    const deleteButton = page.getByRole("button", { name: "Delete my account" });
    await page.getByLabel("Password").fill(user.password);
    await deleteButton.click();
    await expect(codeField).toHaveAccessibleDescription(new RegExp(AUTHENTICATION_CODE_REQUIRED));
    await expect(page).toHaveURL(/\/account\/delete$/);

    await page.getByLabel("Password").fill(user.password);
    await codeField.fill(wrongAuthenticatorCode(setupKey));
    await deleteButton.click();
    await expect(codeField).toHaveAccessibleDescription(/Invalid authentication code/);
    // Without JavaScript the page came back from the server: the password was not kept in it, the code neither.
    if (!hasJavaScript(testInfo)) {
      await expect(page.getByLabel("Password")).toHaveValue("");
      await expect(codeField).toHaveValue("");
    }
    const [alive] = await withDatabase((db) => db.selectFrom("users").select("deleted_at").where("email", "=", user.email).execute());
    expect(alive?.deleted_at).toBeNull();

    const deletedAfter = new Date(Date.now() - 60_000).toISOString();
    await page.getByLabel("Password").fill(user.password);
    // A later step than the one 'Turn on' used: each step is accepted once.
    await codeField.fill(authenticatorCode(setupKey, 1));
    await deleteButton.click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("Your account has been deleted.")).toBeVisible();
    expect(await withDatabase((db) => db.selectFrom("users").select("id").where("email", "=", user.email).execute())).toEqual([]);
    const mail = await latestMail(request, user.email, /^Your VPN account was deleted$/, deletedAfter);
    expect(mail.text).toContain("Any auto-renewal was cancelled: nothing will be charged again.");
  });

  test("a recent payment: the paid days that would be lost, and the money-back refund offered first", async ({ page, request, login }, testInfo) => {
    const user = await buyMonthByCard(page, testInfo, login);
    // Paid 12 days ago, as the guarantee counts it (the plan keeps its dates).
    const { sub, transactionId } = await withDatabase(async (db) => {
      const owner = await db.selectFrom("users").select("id").where("email", "=", user.email).executeTakeFirstOrThrow();
      const payment = await db.selectFrom("transactions").select(["id", "created_at"]).where("user_id", "=", owner.id).executeTakeFirstOrThrow();
      const paidAt = new Date(Date.parse(payment.created_at) - 12 * DAY_MS).toISOString();
      await db.updateTable("transactions").set({ created_at: paidAt }).where("id", "=", payment.id).execute();
      const row = await db.selectFrom("subscriptions").select(["title", "sub_exp_date"]).where("user_id", "=", owner.id).executeTakeFirstOrThrow();
      return { sub: row, transactionId: payment.id };
    });
    // Counted from the API's clock, as the page is.
    const bearer = (await (await request.post("/api/user/login", { data: user })).json()).data.token as string;
    const home = await (await request.get("/api/account/home", { headers: { Authorization: `Bearer ${bearer}` } })).json();
    const days = Math.ceil((Date.parse(sub.sub_exp_date) - Date.parse(home.data.now)) / DAY_MS);

    await open(page, "/", testInfo);
    await openDeletePage(page);
    await expect(
      page.getByText(`You will lose ${days} paid days of your ${sub.title} plan (paid until ${formatLongDate(sub.sub_exp_date)}). Its auto-renewal stops, so you will not be charged again.`),
    ).toBeVisible();
    const offer = page.getByRole("article", { name: "Get your money back first" });
    await expect(offer.getByText("You paid 12 days ago: you can get your money back first.")).toBeVisible();
    await expect(offer.getByText(/refunds your payment of \$9\.99 until \d{2} \w+, \d{4}\./)).toBeVisible();
    // Before the delete form.
    const offerBox = (await offer.boundingBox())!;
    const formBox = (await page.getByRole("button", { name: "Delete my account" }).boundingBox())!;
    expect(offerBox.y).toBeLessThan(formBox.y);

    // It leads to the existing refund step of the billing history. (Not sent here: the guarantee is once per
    // card, and refund.spec.ts refunds the sandbox's good cards on the same server.)
    await offer.getByRole("link", { name: "Request refund" }).click();
    await expect(page).toHaveURL(new RegExp(`/billing\\?refund=${transactionId}$`));
    const dialog = page.getByRole("dialog", { name: "Request a refund" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Refund my payment" })).toBeVisible();
  });
});
