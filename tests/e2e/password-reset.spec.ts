import { expect, test } from "@playwright/test";
import { createPasswordlessUser, createUser, enterCode, logOut, expectHome, hasJavaScript, latestCode, latestMail, open, signIn } from "../support/e2e";

test.describe("forgot password", () => {
  test("email, code with its mm : ss expiry, new password; then the new password signs in", async ({ page, request }, testInfo) => {
    const user = await createUser();
    await open(page, "/login", testInfo);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await expect(page.getByRole("heading", { name: "Reset your password" })).toBeVisible();
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();

    await expect(page.getByText("Enter the code we've sent to")).toBeVisible();
    await expect(page.getByText(user.email)).toBeVisible();
    await expect(page.getByText(/0[45] : [0-5]\d/)).toBeVisible();
    await expect(page.getByRole("button", { name: "Resend Code" })).toBeDisabled();

    await enterCode(page, await latestCode(request, user.email, /reset/i));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByLabel("Confirm Password")).toBeVisible();

    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Please enter password").first()).toBeVisible();
    await page.getByLabel("Password", { exact: true }).fill("brand-new-password");
    await page.getByLabel("Confirm Password").fill("brand-new-passwork");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Passwords don't match")).toBeVisible();
    await page.getByLabel("Password", { exact: true }).fill("brand-new-password");
    await page.getByLabel("Confirm Password").fill("brand-new-password");
    await page.getByRole("button", { name: "Continue", exact: true }).click();

    // The server's message, then home (which asks an anonymous visitor to sign in).
    await expect(page.getByText("Your password has been reset.")).toBeVisible();
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: "These credentials do not match our records." })).toBeVisible();
    await signIn(page, testInfo, { email: user.email, password: "brand-new-password" });
    await expectHome(page);
  });

  test("/reset-password leads to the reset flow; a short code reads 'Please Enter Confirm OTP'", async ({ page }, testInfo) => {
    const user = await createUser();
    await open(page, "/reset-password", testInfo);
    await expect(page).toHaveURL(/\/forget-password$/);
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await enterCode(page, "1234");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Please Enter Confirm OTP")).toBeVisible();
    if (hasJavaScript(testInfo)) await expect(page.getByText(/04 : [0-5]\d/)).toBeVisible({ timeout: 3_000 });
  });
});

test.describe("first password", () => {
  test("an account created without a password sets one through /generate-password/{token}", async ({ page }, testInfo) => {
    const account = await createPasswordlessUser();
    await open(page, `/generate-password/${account.token}`, testInfo);
    await expect(page.getByRole("heading", { name: "Please set your account password" })).toBeVisible();
    await page.getByLabel("Password", { exact: true }).fill("first-password-1");
    await page.getByLabel("Confirm Password").fill("first-password-1");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Your password has been set.")).toBeVisible();
    await signIn(page, testInfo, { email: account.email, password: "first-password-1" });
    await expectHome(page);

    // Single use: the same link no longer works.
    await logOut(page);
    await open(page, `/generate-password/${account.token}`, testInfo);
    await page.getByLabel("Password", { exact: true }).fill("second-password-2");
    await page.getByLabel("Confirm Password").fill("second-password-2");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: /invalid or has expired/ })).toBeVisible();
  });

  test("without a token there is no form", async ({ page }, testInfo) => {
    await open(page, "/generate-password", testInfo);
    await expect(page.getByRole("heading", { name: "Please set your account password" })).toBeVisible();
    await expect(page.getByLabel("Confirm Password")).toHaveCount(0);
  });

  test("the dashboard's 'Set password' emails the link for an account without one", async ({ page, request }, testInfo) => {
    const account = await createPasswordlessUser();
    // Such an account signs in by emailed code.
    await open(page, "/get-code", testInfo);
    await page.getByLabel("Email").fill(account.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await enterCode(page, await latestCode(request, account.email, /sign-in code/i));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expectHome(page);

    await page.getByRole("button", { name: "Set password" }).click();
    await expect(page.getByText("We have emailed you a link to set your password.")).toBeVisible();
    const mail = await latestMail(request, account.email, /set your account password/i);
    const link = mail.text.match(/https?:\/\/\S+\/generate-password\/\S+/)?.[0];
    expect(link).toBeTruthy();
    await open(page, new URL(link!).pathname, testInfo);
    await page.getByLabel("Password", { exact: true }).fill("via-email-link-1");
    await page.getByLabel("Confirm Password").fill("via-email-link-1");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expectHome(page);
    await expect(page.getByRole("button", { name: "Change Password" })).toBeVisible();
  });
});

test.describe("change password from the dashboard", () => {
  test("code, then the new password; the dialog closes and the new password works", async ({ page, request }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await page.getByRole("button", { name: "Change Password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change Password" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText(user.email)).toBeVisible();

    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(dialog.getByText("Please Enter Confirm OTP")).toBeVisible();
    await dialog.getByLabel("Verification code").fill(await latestCode(request, user.email, /reset/i));
    await dialog.getByRole("button", { name: "Next" }).click();

    await dialog.getByLabel("Password", { exact: true }).fill("changed-password-1");
    await dialog.getByLabel("Confirm Password").fill("changed-password-1");
    await dialog.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByText("Your password has been reset.")).toBeVisible();
    await expectHome(page);

    // This session stayed signed in; the new password works after logging out.
    await logOut(page);
    await signIn(page, testInfo, { email: user.email, password: "changed-password-1" });
    await expectHome(page);
  });
});
