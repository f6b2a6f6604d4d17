import { expect, test, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import { createUser, expectHome, hasJavaScript, latestCode, logOut, open, signIn, submitSignIn } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { authenticatorCode, handOffPage, wrongAuthenticatorCode } from "./identity-support";

// Two-factor authentication (issue 12, part 1): turn it on with a code computed from the setup key,
// sign out, sign in with password + code, then with a recovery code, and turn it off. Each test runs
// without JavaScript and with it (projects no-js and js).

async function verifyButton(page: Page) {
  return page.getByRole("button", { name: "Verify", exact: true });
}

/** From the home: 'Set up', the setup key, 'Turn on' with its code and the password; answers the key and the recovery codes. */
async function turnOnTwoFactor(page: Page, password: string): Promise<{ setupKey: string; recoveryCodes: string[] }> {
  await expectHome(page);
  await page.getByRole("link", { name: "Set up" }).click();
  const setupKey = await page.getByLabel("Setup key").inputValue();
  await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
  await page.getByLabel("Current password").fill(password);
  await page.getByRole("button", { name: "Turn on" }).click();
  const codeList = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect(codeList).toHaveCount(10);
  const recoveryCodes = (await codeList.allTextContents()).map((code) => code.trim());
  await page.getByRole("link", { name: "Done" }).click();
  await expectHome(page);
  return { setupKey, recoveryCodes };
}

/** The identity sandbox's page, with or without 'I used two-factor' (the ID token's amr). */
async function approveAtGoogle(page: Page, email: string, usedTwoFactor: boolean) {
  await page.waitForURL(/\/dev\/oidc\/google\//);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Name").fill("Two Factor");
  if (usedTwoFactor) await page.getByLabel("I used two-factor").check();
  await page.getByRole("button", { name: "Continue" }).click();
}

test.describe("two-factor authentication", () => {
  test("turn it on, sign in with a code and with a recovery code, turn it off", async ({ page }, testInfo) => {
    // Turn on, two sign-ins (code, recovery code), turn off: ~20 s alone, past 30 s under CI's two workers.
    test.slow();
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);

    // The home's card: Off, with 'Set up'.
    const card = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Two-factor authentication" }) });
    await expect(card.getByText("Off", { exact: true })).toBeVisible();
    await card.getByRole("link", { name: "Set up" }).click();
    await expect(page).toHaveURL(/\/account\/two-factor$/);
    await expect(page.getByRole("heading", { name: "Two-factor authentication", level: 1 })).toBeVisible();
    // The QR code is server-rendered SVG.
    await expect(page.getByRole("img", { name: "QR code for your authenticator app" }).locator("svg")).toBeVisible();
    const setupKey = await page.getByLabel("Setup key").inputValue();
    expect(setupKey).toMatch(/^[A-Z2-7]{32}$/);

    // A wrong code is refused next to the field; so is a missing or wrong current password (the
    // setup stays: same key); the right code with the right password turns it on.
    const turnOn = page.getByRole("button", { name: "Turn on" });
    await turnOn.click();
    await expect(page.getByText("Please enter the 6-digit authentication code")).toBeVisible();
    await expect(page.getByText("Please enter your password.")).toBeVisible();
    await page.getByLabel("Authentication code").fill(wrongAuthenticatorCode(setupKey));
    await page.getByLabel("Current password").fill(user.password);
    await turnOn.click();
    await expect(page.getByText("Invalid authentication code")).toBeVisible();
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
    await page.getByLabel("Current password").fill("wrong-password");
    await turnOn.click();
    const passwordError = page.getByText("The password is incorrect.");
    await expect(passwordError).toBeVisible();
    await expect(page.getByLabel("Setup key")).toHaveValue(setupKey);
    await expect(turnOn).toBeVisible();
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
    await page.getByLabel("Current password").fill(user.password);
    await turnOn.click();

    // Ten recovery codes, shown once, and downloadable as text.
    const codeList = page.getByRole("list", { name: "Recovery codes" });
    await expect(codeList.getByRole("listitem")).toHaveCount(10);
    const recoveryCodes = (await codeList.getByRole("listitem").allTextContents()).map((code) => code.trim());
    const downloadPromise = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download recovery codes" }).click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toBe("vpn-recovery-codes.txt");
    const text = await readFile((await download.path())!, "utf8");
    for (const code of recoveryCodes) expect(text).toContain(code);
    // Shown once: coming back shows 'Turn off', not the codes.
    await open(page, "/account/two-factor", testInfo);
    await expect(page.getByRole("list", { name: "Recovery codes" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Turn off" })).toBeVisible();
    await open(page, "/", testInfo);
    await expect(card.getByText("On", { exact: true })).toBeVisible();

    // Sign out; the password alone now leads to the second step.
    await logOut(page);
    await submitSignIn(page, user);
    await expect(page).toHaveURL(/\/login\/two-factor$/);
    await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
    // A wrong code is refused; the next step's code signs in (this step's was used to turn it on).
    await page.getByLabel("Authentication code").fill(wrongAuthenticatorCode(setupKey));
    await (await verifyButton(page)).click();
    await expect(page.getByText("Invalid authentication code")).toBeVisible();
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey, 1));
    await (await verifyButton(page)).click();
    await expectHome(page);

    // Again, with a recovery code.
    await logOut(page);
    await submitSignIn(page, user);
    await expect(page).toHaveURL(/\/login\/two-factor$/);
    await page.getByRole("link", { name: "Use a recovery code" }).click();
    await expect(page).toHaveURL(/\/login\/two-factor\?recovery=1$/);
    await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await (await verifyButton(page)).click();
    await expectHome(page);

    // Turn it off (with another recovery code: the authenticator's codes of this minute are used).
    await card.getByRole("link", { name: "Turn off" }).click();
    await expect(page).toHaveURL(/\/account\/two-factor$/);
    await page.getByRole("link", { name: "Use a recovery code" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await page.getByRole("button", { name: "Turn off" }).click();
    await expect(page.getByText("Invalid recovery code")).toBeVisible();
    await page.getByLabel("Recovery code").fill(recoveryCodes[1]!);
    await page.getByRole("button", { name: "Turn off" }).click();
    await expectHome(page);
    await expect(page.getByText("Two-factor authentication is off.").first()).toBeVisible();
    await expect(card.getByText("Off", { exact: true })).toBeVisible();

    // The password alone signs in again.
    await logOut(page);
    await submitSignIn(page, user);
    await expectHome(page);
  });

  test("Google sign-in asks for the code unless the provider says it used two-factor; so does the desktop hand-off", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    const { setupKey, recoveryCodes } = await turnOnTwoFactor(page, user.password);
    await logOut(page);

    // Google without multi-factor: our second step, then home with the provider's message.
    await open(page, "/login", testInfo);
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await approveAtGoogle(page, user.email, false);
    await expect(page).toHaveURL(/\/login\/two-factor$/);
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey, 1));
    await (await verifyButton(page)).click();
    await expectHome(page);
    await expect(page.getByText("Signed in with Google.")).toBeVisible();
    await logOut(page);

    // Google that used two-factor itself (amr: mfa): straight home.
    await open(page, "/login", testInfo);
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await approveAtGoogle(page, user.email, true);
    await expectHome(page);
    await logOut(page);

    // The desktop hand-off (in a page of its own: handOffPage): the second step, then the page that opens the app.
    const handOff = await handOffPage(page);
    await handOff.goto("/desktop-app/google/login?device_os=Linux");
    await approveAtGoogle(handOff, user.email, false);
    await expect(handOff).toHaveURL(/\/login\/two-factor$/);
    await handOff.getByRole("link", { name: "Use a recovery code" }).click();
    await handOff.getByLabel("Recovery code").fill("aaaaa-aaaaa");
    await (await verifyButton(handOff)).click();
    await expect(handOff.getByText("Invalid recovery code")).toBeVisible();
    // (This half-minute's authenticator codes are used up: a recovery code finishes it.)
    await handOff.getByLabel("Recovery code").fill(recoveryCodes[5]!);
    await (await verifyButton(handOff)).click();
    const openApp = handOff.getByRole("link", { name: "Open the app" });
    await expect(openApp).toBeVisible();
    expect(await openApp.getAttribute("href")).toMatch(/^vpnapp:\/\/auth\?token=/);
    if (!hasJavaScript(testInfo)) await expect(handOff.locator('meta[http-equiv="refresh"]')).toHaveAttribute("content", /^0; url=vpnapp:/);
  });

  test("an account without a password (Google only) turns it on with a code emailed to it", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("tf-google");
    await open(page, "/login", testInfo);
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await approveAtGoogle(page, email, false);
    await expectHome(page);
    await page.getByRole("link", { name: "Set up" }).click();
    await expect(page.getByLabel("Current password")).toHaveCount(0);
    const setupKey = await page.getByLabel("Setup key").inputValue();

    // 'Turn on' without the emailed code is refused next to its field.
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByText("Please enter the 6-digit verification code")).toBeVisible();

    await page.getByRole("button", { name: "Send code" }).click();
    await expect(page.getByText("We have emailed you a code to confirm.").first()).toBeVisible();
    const emailed = await latestCode(request, email, /two-factor/);
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
    await page.getByLabel("Verification code").fill(emailed === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByText("Invalid verification code")).toBeVisible();
    await page.getByLabel("Authentication code").fill(authenticatorCode(setupKey));
    await page.getByLabel("Verification code").fill(emailed);
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem")).toHaveCount(10);
  });
});

test("the setup key wraps on a phone, and has 'Copy' with JavaScript (a phone cannot scan its own screen; issue 33)", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 320, height: 640 });
  await signIn(page, testInfo, await createUser());
  await expectHome(page);
  await open(page, "/account/two-factor", testInfo);
  const key = page.getByLabel("Setup key");
  const value = await key.inputValue();
  expect(value).toMatch(/^[A-Z2-7]{16,}$/);
  // All of it shown: the box is as wide as its text needs, or the text wraps inside it.
  expect(await key.evaluate((box) => box.scrollWidth <= box.clientWidth + 1)).toBe(true);
  const steps = page.getByRole("list").filter({ hasText: "Scan this QR code" });
  await expect(steps.getByRole("listitem")).toHaveCount(4);
  if (!hasJavaScript(testInfo)) {
    await expect(page.getByRole("button", { name: "Copy" })).toHaveCount(0);
    return;
  }
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  try {
    await page.getByRole("button", { name: "Copy" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
  } finally {
    await page.context().clearPermissions();
  }
});
