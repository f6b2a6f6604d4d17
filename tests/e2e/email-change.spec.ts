import type { Page } from "@playwright/test";
import { createPasswordlessUser, enterCode, expectHome, latestCode, latestMail, open, signIn } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { expect, test } from "../support/fixtures";

// 'Change email' on the account home (issue 22): 'New email' and 'Current password', 'Send code', the
// code from the new address, 'Verify'; then sign in with the new address, and undo it from the link
// in the old address's email, which signs out everywhere. Without JavaScript and with it.

async function openDialog(page: Page) {
  await page.getByRole("button", { name: "Change email" }).click();
  const dialog = page.getByRole("dialog", { name: "Change email" });
  await expect(dialog).toBeVisible();
  return dialog;
}

test.describe("change email", () => {
  test("change the email with the password and the code, sign in with it, then put the old one back from its email", async ({
    page,
    request,
    login,
  }, testInfo) => {
    test.slow();
    const user = await login();
    const newEmail = uniqueEmail("moved");
    await open(page, "/", testInfo);
    await expectHome(page);
    await expect(page.getByText(user.email).first()).toBeVisible();

    let dialog = await openDialog(page);
    await dialog.getByRole("button", { name: "Send code", exact: true }).click();
    await expect(dialog.getByText("Email is required")).toBeVisible();
    await expect(dialog.getByText("Please enter your current password.")).toBeVisible();

    await dialog.getByLabel("New email").fill(newEmail);
    await dialog.getByLabel("Current password").fill("wrong-password");
    await dialog.getByRole("button", { name: "Send code", exact: true }).click();
    dialog = page.getByRole("dialog", { name: "Change email" });
    await expect(dialog.getByText("The password is incorrect.")).toBeVisible();

    await dialog.getByLabel("New email").fill(newEmail);
    await dialog.getByLabel("Current password").fill(user.password);
    await dialog.getByRole("button", { name: "Send code", exact: true }).click();
    dialog = page.getByRole("dialog", { name: "Change email" });
    await expect(dialog.getByText(newEmail)).toBeVisible();
    await enterCode(page, await latestCode(request, newEmail, /Confirm your new email address/));
    await dialog.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByText("Your email address has been changed.").first()).toBeVisible();
    await expectHome(page);
    await expect(page.getByText(newEmail).first()).toBeVisible();

    // Sign in with the new address (a second browser, as on another device).
    const other = await page.context().browser()!.newContext({ javaScriptEnabled: testInfo.project.use.javaScriptEnabled, baseURL: testInfo.project.use.baseURL });
    const otherPage = await other.newPage();
    await signIn(otherPage, testInfo, { email: newEmail, password: user.password });
    await expectHome(otherPage);

    // The old address's email undoes it, and every device is signed out.
    const changed = await latestMail(request, user.email, /^Your email address was changed$/);
    const link = changed.text.match(/https?:\/\/\S+\/email-revert\/\S+/)?.[0];
    expect(link).toBeTruthy();
    await open(page, new URL(link!).pathname, testInfo);
    await expect(page.getByRole("heading", { name: "Restore your email address" })).toBeVisible();
    await page.getByRole("button", { name: "Restore my email address" }).click();
    await expect(page.getByRole("heading", { name: "Your email address is back" })).toBeVisible();
    await expect(page.getByText("every device has been signed out")).toBeVisible();

    // A second use of the link is refused in the page.
    await open(page, new URL(link!).pathname, testInfo);
    await page.getByRole("button", { name: "Restore my email address" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "This link is invalid, has expired or was already used." })).toBeVisible();

    // Both browsers are signed out.
    await otherPage.goto("/");
    await expect(otherPage).toHaveURL(/\/login/);
    await other.close();
    await page.goto("/");
    await expect(page).toHaveURL(/\/login/);

    await open(page, "/login", testInfo);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expectHome(page);
    await expect(page.getByText(user.email).first()).toBeVisible();
  });

  test("an address that has an account: the same answer, that address is told, and no code works", async ({ page, request, login }, testInfo) => {
    const taken = await login();
    await page.context().clearCookies();
    const user = await login();
    await open(page, "/", testInfo);
    const dialog = await openDialog(page);
    await dialog.getByLabel("New email").fill(taken.email);
    await dialog.getByLabel("Current password").fill(user.password);
    await dialog.getByRole("button", { name: "Send code", exact: true }).click();
    const codeStep = page.getByRole("dialog", { name: "Change email" });
    await expect(codeStep.getByText(taken.email)).toBeVisible();
    const notice = await latestMail(request, taken.email, /already has an account/);
    expect(notice.text).not.toMatch(/\b\d{6}\b/);
    await enterCode(page, "123456");
    await codeStep.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByText("Invalid verification code").first()).toBeVisible();
  });

  test("an account without a password confirms with a code sent to its current address", async ({ page, request }, testInfo) => {
    const { email } = await createPasswordlessUser();
    const newEmail = uniqueEmail("nopass-moved");
    await open(page, "/get-code", testInfo);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await enterCode(page, await latestCode(request, email, /sign-in/i));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expectHome(page);

    const dialog = await openDialog(page);
    await expect(dialog.getByText(email)).toBeVisible();
    await expect(dialog.getByLabel("Current password")).toHaveCount(0);
    await dialog.getByLabel("New email").fill(newEmail);
    await enterCode(page, await latestCode(request, email, /^Your code to change your email address$/));
    await dialog.getByRole("button", { name: "Send code", exact: true }).click();
    const codeStep = page.getByRole("dialog", { name: "Change email" });
    await expect(codeStep.getByText(newEmail)).toBeVisible();
    await enterCode(page, await latestCode(request, newEmail, /Confirm your new email address/));
    await codeStep.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByText("Your email address has been changed.").first()).toBeVisible();
    await expect(page.getByText(newEmail).first()).toBeVisible();
  });
});
