import type { Page } from "@playwright/test";
import { createPasswordlessUser, enterCode, expectHome, latestCode, open, submitSignIn, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// 'Delete account' (issue 12): the home's link, the page that says what happens, the password (or an
// emailed code), then /login with the message; the old credentials fail and the email signs up anew.
// Each test runs without JavaScript and with it.

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
});
