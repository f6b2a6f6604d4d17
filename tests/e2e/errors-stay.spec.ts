import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import { expectKeyboardModal } from "../support/dialogs";
import {
  createPasswordlessUser,
  createUser,
  enterCode,
  expectHome,
  hasJavaScript,
  latestCode,
  logOut,
  open,
  signIn,
  submitSignIn,
  withDatabase,
} from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { authenticatorCode, wrongAuthenticatorCode } from "./identity-support";

// A page of their own (not the worker's reused one, playwright.config.ts): the animation playback rate set
// through CDP stays with the page, and would hurry a later test's toasts.
test.use({ reuseContext: false });

// Issue 21, errors that vanish: a refused submission keeps the spec's toast, which closes after 5 s,
// and its message also stays in the page, next to its field (aria-invalid, aria-describedby) or in the
// form's alert, until the person acts. With JavaScript the page's clock is moved 10 s on (page.clock);
// without it, the page's CSS animations are sped up. The password rules show before any typing.

const RULE = "At least 8 characters";

/**
 * Before the page loads: with JavaScript, a clock the test can move (the toast's timer follows it).
 * Returns what checks, 10 s after the error appeared, that the toast has gone and the error is still there.
 */
async function tenSecondsLater(page: Page, testInfo: TestInfo) {
  if (hasJavaScript(testInfo)) await page.clock.install();
  return async (message: string | RegExp, stillThere: () => Promise<void>) => {
    await stillThere();
    // The toast is only the visual echo of the page's own message (hidden from assistive technology),
    // so it is found by its place, the toast stack, rather than by a role.
    const toast = page.locator(".toasts").getByText(message);
    if (hasJavaScript(testInfo)) {
      await page.clock.fastForward(10_000);
      await expect(toast).toHaveCount(0);
    } else {
      // Without JavaScript the toast closes by its CSS animation after 5 s. The page's animation clock
      // (DevTools' Animation domain, which needs no page script) runs 40 times faster: 10 s in 0.25 s.
      const devtools = await page.context().newCDPSession(page);
      await devtools.send("Animation.enable");
      await devtools.send("Animation.setPlaybackRate", { playbackRate: 40 });
      const shownAt = Date.now();
      await expect(toast).toBeHidden();
      await page.waitForTimeout(Math.max(0, 250 - (Date.now() - shownAt)));
      await devtools.detach();
    }
    await stillThere();
  };
}

/** The field is marked invalid and its description (aria-describedby) is the message. */
async function expectTiedTo(field: Locator, message: string | RegExp) {
  await expect(field).toBeVisible();
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription(message);
}

async function startCodeSignIn(page: Page, testInfo: TestInfo, email: string) {
  await open(page, "/get-code", testInfo);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(page.getByText("Enter the code we've sent to")).toBeVisible();
}

test.describe("errors stay in the page", () => {
  test("a wrong password stays in the sign-in form's alert after the toast has closed", async ({ page }, testInfo) => {
    const later = await tenSecondsLater(page, testInfo);
    const user = await createUser();
    await signIn(page, testInfo, { email: user.email, password: "wrong-password" });
    const message = "These credentials do not match our records.";
    const form = page.locator("form").filter({ has: page.getByLabel("Password") });
    await later(message, async () => {
      await expect(form.getByRole("alert")).toHaveText(message);
    });
  });

  test("a wrong emailed code stays next to the code field", async ({ page, request }, testInfo) => {
    const later = await tenSecondsLater(page, testInfo);
    const user = await createUser();
    await startCodeSignIn(page, testInfo, user.email);
    const code = await latestCode(request, user.email, /sign-in code/i);
    await enterCode(page, code === "999999" ? "888888" : "999999");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await later("Invalid verification code", () => expectTiedTo(page.getByLabel("Verification code"), "Invalid verification code"));
  });

  test("an expired emailed code stays next to the code field", async ({ page, request }, testInfo) => {
    const later = await tenSecondsLater(page, testInfo);
    const user = await createUser();
    await startCodeSignIn(page, testInfo, user.email);
    const code = await latestCode(request, user.email, /sign-in code/i);
    // The code's 300 s run out (the API owns them; here the row is aged directly).
    await withDatabase((db) =>
      db.updateTable("verification_codes").set({ expires_at: new Date(Date.now() - 1_000).toISOString() }).where("email", "=", user.email).execute(),
    );
    await enterCode(page, code);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await later(/expired/i, () => expectTiedTo(page.getByLabel("Verification code"), /expired/i));
  });

  test("a wrong two-factor code stays next to its field", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await page.getByRole("link", { name: "Set up" }).click();
    const setupKey = await page.getByLabel("Setup key").inputValue();
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
    await page.getByLabel("Current password").fill(user.password);
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByRole("list", { name: "Recovery codes" })).toBeVisible();
    await page.getByRole("link", { name: "Done" }).click();
    await logOut(page);

    const later = await tenSecondsLater(page, testInfo);
    await open(page, "/login", testInfo);
    await submitSignIn(page, user);
    await expect(page).toHaveURL(/\/login\/two-factor$/);
    await page.getByLabel("Authentication code").fill(wrongAuthenticatorCode(setupKey));
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await later("Invalid authentication code", () => expectTiedTo(page.getByLabel("Authentication code"), "Invalid authentication code"));
  });

  test("a sign-up code that expired before Finish is said next to the code field it comes back to", async ({ page, request }, testInfo) => {
    const later = await tenSecondsLater(page, testInfo);
    const email = uniqueEmail("errors-stay-signup");
    await open(page, "/login?tab=signup", testInfo);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" }).check();
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
    await enterCode(page, await latestCode(request, email));
    await page.getByRole("button", { name: "Continue", exact: true }).click();

    // The rules are there before anything is typed, and the Password field names them.
    const password = page.getByLabel("Password", { exact: true });
    await expect(password).toHaveValue("");
    await expect(page.getByText(RULE)).toBeVisible();
    await expect(password).toHaveAccessibleDescription(/at least 8 characters/i);

    await withDatabase((db) =>
      db.updateTable("verification_codes").set({ expires_at: new Date(Date.now() - 1_000).toISOString() }).where("email", "=", email).execute(),
    );
    await password.fill("a-strong-password");
    await page.getByLabel("Confirm Password").fill("a-strong-password");
    await page.getByRole("button", { name: "Finish" }).click();
    await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
    await later(/expired/i, () => expectTiedTo(page.getByLabel("Verification code"), /expired/i));
  });
});

test.describe("password rules up front", () => {
  test("the first-password page lists the rules before any typing, tied to Password", { tag: "@once" }, async ({ page }, testInfo) => {
    const account = await createPasswordlessUser();
    await open(page, `/generate-password/${account.token}`, testInfo);
    await expect(page.getByText(RULE)).toBeVisible();
    await expect(page.getByText("To be typed the same in Confirm Password")).toBeVisible();
    await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/at least 8 characters/i);
  });

  test("the reset's password step lists the rules before any typing", async ({ page, request }, testInfo) => {
    const user = await createUser();
    await open(page, "/forget-password", testInfo);
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await enterCode(page, await latestCode(request, user.email, /reset/i));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByLabel("Confirm Password")).toBeVisible();
    await expect(page.getByText(RULE)).toBeVisible();
    await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/at least 8 characters/i);
  });
});

test.describe("change-password dialog", () => {
  test("a wrong code stays in the dialog; the password step lists the rules", async ({ page, request }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await page.getByRole("button", { name: "Change Password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change Password" });
    const code = await latestCode(request, user.email, /reset/i);
    await enterCode(page, code === "999999" ? "888888" : "999999");
    await dialog.getByRole("button", { name: "Next" }).click();
    await expectTiedTo(dialog.getByLabel("Verification code"), /invalid/i);

    await enterCode(page, code);
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(dialog.getByText(RULE)).toBeVisible();
    await expect(dialog.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/at least 8 characters/i);
  });

  test("with JavaScript it is a modal: focus stays in it, Escape closes it and focus returns", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "a modal needs JavaScript; without it the dialog is a page state");
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    const opener = page.getByRole("button", { name: "Change Password" });
    await opener.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/dialog=change-password/);
    await expectKeyboardModal(page, page.getByRole("dialog", { name: "Change Password" }), { opener });
    await expect(page).not.toHaveURL(/dialog=/);
  });
});
