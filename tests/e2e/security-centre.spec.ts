import type { APIRequestContext, Browser, Page, TestInfo } from "@playwright/test";
import { createUser, hasJavaScript, open, submitSignIn } from "../support/e2e";
import { expect, signInThroughForm, test } from "../support/fixtures";

// The security page (issue 22, docs/decisions/035): 'Security' in the navigation, the recent activity
// with the shortened network, a failed sign-in, the new sign-in email for a browser new to the account
// (and not for the same one again), turning the alerts off, and 'This device' / 'Last active'.

const NEW_SIGN_IN = /^New sign-in to your account/;
const NETWORK = /^(127\.0\.0\.0\/24|::\/48)$/;

async function newSignInMails(request: APIRequestContext, email: string): Promise<number> {
  const response = await request.get(`/dev/mailbox.json?to=${encodeURIComponent(email)}`);
  const mails = (await response.json()) as Array<{ subject: string }>;
  return mails.filter((mail) => NEW_SIGN_IN.test(mail.subject)).length;
}

async function otherBrowser(browser: Browser, testInfo: TestInfo): Promise<Page> {
  const context = await browser.newContext({ baseURL: testInfo.project.use.baseURL, javaScriptEnabled: hasJavaScript(testInfo) });
  return context.newPage();
}

const activityRows = (page: Page) => page.getByRole("table").getByRole("row");

test("the security page: activity, new sign-in emails, turning them off, and this device", async ({ page, browser }, testInfo) => {
  test.slow();
  const user = await createUser();
  const baseURL = testInfo.project.use.baseURL!;

  // A wrong password, then the right one, from this browser (the account's first: no email).
  await open(page, "/login", testInfo);
  await submitSignIn(page, { email: user.email, password: "wrong-password-123" });
  await expect(page.getByRole("alert").filter({ hasText: /credentials/ })).toBeVisible();
  await submitSignIn(page, user);
  await expect(page).toHaveURL(/\/$/);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Security" }).click();
  await expect(page).toHaveURL(/\/account\/security$/);
  await expect(page.getByRole("heading", { name: "Security", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Recent activity" })).toBeVisible();
  await expect(page.getByText("Security events are kept for 90 days.")).toBeVisible();
  const signedIn = activityRows(page).filter({ hasText: "Signed in" }).first();
  await expect(signedIn.getByRole("cell").nth(3)).toHaveText(NETWORK);
  await expect(activityRows(page).filter({ hasText: "Sign-in failed" })).toHaveCount(1);
  await expect(page.getByRole("link", { name: "Two-factor authentication" })).toHaveAttribute("href", "/account/two-factor");
  await expect(page.getByRole("heading", { name: "Passkeys" })).toBeVisible();
  expect(await newSignInMails(page.request, user.email)).toBe(0);

  // Another browser (no device cookie yet): one email. This browser again: none.
  const other = await otherBrowser(browser, testInfo);
  try {
    await signInThroughForm(other.request, baseURL, user);
    await expect.poll(() => newSignInMails(page.request, user.email)).toBe(1);
    await signInThroughForm(page.request, baseURL, user);
    await signInThroughForm(other.request, baseURL, user);
    expect(await newSignInMails(page.request, user.email)).toBe(1);
  } finally {
    await other.context().close();
  }

  // Alerts off: a third browser signs in without an email.
  await open(page, "/account/security", testInfo);
  const alerts = page.getByRole("checkbox", { name: "Email me when my account is signed in from a new browser or app" });
  await expect(alerts).toBeChecked();
  await alerts.uncheck();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Sign-in alerts are off.").first()).toBeVisible();
  await expect(alerts).not.toBeChecked();
  const third = await otherBrowser(browser, testInfo);
  try {
    await signInThroughForm(third.request, baseURL, user);
  } finally {
    await third.context().close();
  }
  expect(await newSignInMails(page.request, user.email)).toBe(1);

  // Connected devices: this browser's card says so, and every card has its last activity.
  await page.getByRole("link", { name: "Connected Devices" }).first().click();
  await expect(page.getByRole("heading", { name: "Connected Devices", level: 1 })).toBeVisible();
  const cards = page.getByRole("list", { name: "Connected devices" }).getByRole("listitem");
  await expect(cards.filter({ hasText: "This device" })).toHaveCount(1);
  await expect(cards.filter({ hasText: "This device" })).toContainText("Last active");
});

test("the new sign-in email's link sets a new password and signs the other browser out", async ({ page, browser }, testInfo) => {
  const user = await createUser();
  const baseURL = testInfo.project.use.baseURL!;
  await signInThroughForm(page.request, baseURL, user);
  const other = await otherBrowser(browser, testInfo);
  try {
    await signInThroughForm(other.request, baseURL, user);
    let text = "";
    await expect
      .poll(async () => {
        const mails = (await (await page.request.get(`/dev/mailbox.json?to=${encodeURIComponent(user.email)}`)).json()) as Array<{ subject: string; text: string }>;
        text = mails.find((mail) => NEW_SIGN_IN.test(mail.subject))?.text ?? "";
        return text;
      })
      .toContain("/reset-password?token=");
    expect(text).toMatch(/Network: (127\.0\.0\.0\/24|::\/48)/);
    const link = new URL(/(https?:\/\/\S+\/reset-password\?\S+)/.exec(text)![1]!);

    await open(page, `${link.pathname}${link.search}`, testInfo);
    await expect(page).toHaveURL(/\/forget-password$/);
    await page.getByLabel("Password", { exact: true }).fill("a-brand-new-password");
    await page.getByLabel("Confirm Password").fill("a-brand-new-password");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Your password has been reset.").first()).toBeVisible();

    await open(other, "/connected-devices", testInfo);
    await expect(other).toHaveURL(/\/login/);
  } finally {
    await other.context().close();
  }
});
