import { expect, test, type Page, type TestInfo } from "@playwright/test";
import {
  createPasswordlessUser,
  createUser,
  enterCode,
  expectHome,
  hasJavaScript,
  latestCode,
  latestMail,
  logOut,
  open,
  submitSignIn,
  withDatabase,
} from "../support/e2e";

// A page of their own (not the worker's reused one, playwright.config.ts): the virtual authenticator these
// tests add through CDP stays with the page, where a later test's passkey autofill on /login would find it.
test.use({ reuseContext: false });

// Passkeys (issue 22, docs/decisions/037) in Chromium with its virtual authenticator (CDP WebAuthn).
// They need JavaScript: the js project runs the flow; the no-js project checks that without it the
// sign-in page has no passkey button and the security page says adding one needs JavaScript.
//
// Browsers refuse an IP address as a relying party ID, so these pages are opened on localhost (the API
// serves a loopback PUBLIC_URL as localhost: see identity/passkeys.ts).

function onLocalhost(testInfo: TestInfo, path: string): string {
  const base = new URL(String(testInfo.project.use.baseURL));
  base.hostname = "localhost";
  return new URL(path, base).toString();
}

/** A platform authenticator with user verification that answers every prompt at once. */
async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/**
 * The virtual authenticator answers the sign-in page's autofill request (conditional UI) on its own,
 * where a person would pick the passkey from the Email field's suggestions. To press the button
 * instead, the page is made to look like a browser without autofill for passkeys while a localStorage
 * flag is set (read each time the page asks).
 */
async function allowAutofillSwitch(page: Page) {
  await page.addInitScript(() => {
    const credential = window.PublicKeyCredential;
    const available = credential?.isConditionalMediationAvailable?.bind(credential);
    if (!available) return;
    Object.defineProperty(credential, "isConditionalMediationAvailable", {
      value: async () => (localStorage.getItem("e2e-no-passkey-autofill") === "1" ? false : available()),
    });
  });
}

/**
 * Browsers without WebAuthn's JSON methods (PublicKeyCredential.parseRequestOptionsFromJSON and
 * toJSON) sign in through @simplewebauthn/browser, loaded then: while a localStorage flag is set, the
 * page is made to look like one (Chromium has them).
 */
async function allowWebAuthnJsonSwitch(page: Page) {
  await page.addInitScript(() => {
    const credential = window.PublicKeyCredential as unknown as { parseRequestOptionsFromJSON?: unknown; prototype: { toJSON?: unknown } } | undefined;
    if (!credential || location.protocol === "about:" || localStorage.getItem("e2e-no-webauthn-json") !== "1") return;
    delete credential.parseRequestOptionsFromJSON;
    delete credential.prototype.toJSON;
  });
}

async function setWebAuthnJson(page: Page, on: boolean) {
  await page.evaluate((off) => (off ? localStorage.setItem("e2e-no-webauthn-json", "1") : localStorage.removeItem("e2e-no-webauthn-json")), !on);
}

/** The scripts the page requests from now on; `webAuthnLibraryAmong` tells whether @simplewebauthn/browser is one. */
function watchScripts(page: Page): Set<string> {
  const urls = new Set<string>();
  page.on("request", (request) => {
    if (request.resourceType() === "script") urls.add(request.url());
  });
  return urls;
}

async function webAuthnLibraryAmong(page: Page, urls: Set<string>): Promise<boolean> {
  for (const url of urls) {
    // The library's own error text; the portal's code does not have it.
    if ((await (await page.request.get(url)).text()).includes("Authentication was not completed")) return true;
  }
  return false;
}

async function setAutofill(page: Page, on: boolean) {
  await page.evaluate((off) => (off ? localStorage.setItem("e2e-no-passkey-autofill", "1") : localStorage.removeItem("e2e-no-passkey-autofill")), !on);
}

/** Logs out and signs in with 'Sign in with a passkey'. */
async function logOutThenSignInWithAPasskey(page: Page) {
  await setAutofill(page, false);
  await logOut(page);
  await page.locator("html[data-hydrated]").waitFor();
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
}

async function turnOnTwoFactorInTheDatabase(email: string) {
  await withDatabase(async (db) => {
    const user = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    // Two-factor counts as on once a secret is active; this flow never needs its codes.
    await db
      .insertInto("two_factor")
      .values({ user_id: user.id, secret_ciphertext: "v1.unused.unused.unused", pending_secret_ciphertext: null, pending_created_at: null, enabled_at: now, last_used_step: null, updated_at: now })
      .execute();
  });
}

test("without JavaScript: no passkey button; adding one confirms the password in a plain form, then says the prompt needs JavaScript", { tag: "@once" }, async ({ page }, testInfo) => {
  await open(page, "/login", testInfo);
  await expect(page.getByLabel("Email")).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toHaveCount(0);

  const user = await createUser({ emailPrefix: "passkey-nojs" });
  await submitSignIn(page, user);
  await expectHome(page);
  await open(page, "/account/security", testInfo);
  const section = page.locator("#passkeys");
  await expect(section.getByRole("heading", { name: "Passkeys" })).toBeVisible();
  const add = section.getByRole("form", { name: "Add a passkey" });

  // The server checks the form: the name, then the password.
  await add.getByRole("button", { name: "Continue" }).click();
  await expect(add.getByText("Please enter a passkey name")).toBeVisible();
  await expect(add.getByText("Please enter your current password.")).toBeVisible();
  await add.getByLabel("Passkey name").fill("Laptop");
  await add.getByLabel("Current password").fill("not-my-password");
  await add.getByRole("button", { name: "Continue" }).click();
  await expect(add.getByText("The password is incorrect.")).toBeVisible();
  await expect(add.getByLabel("Passkey name")).toHaveValue("Laptop");
  await add.getByLabel("Current password").fill(user.password);
  await add.getByRole("button", { name: "Continue" }).click();

  // Confirmed: the browser's prompt is next, which needs JavaScript; 'Cancel' goes back.
  await expect(section.getByText("Creating a passkey needs JavaScript")).toBeVisible();
  await expect(section.getByRole("button", { name: "Create passkey" })).toHaveCount(0);
  await section.getByRole("button", { name: "Cancel" }).click();
  await expect(section.getByRole("form", { name: "Add a passkey" }).getByLabel("Passkey name")).toBeVisible();
});

test("an account without a password confirms adding a passkey with a code emailed to it", async ({ page, request }, testInfo) => {
  const account = await createPasswordlessUser();
  await open(page, "/get-code", testInfo);
  await page.getByLabel("Email").fill(account.email);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await enterCode(page, await latestCode(request, account.email, /sign-in code/i));
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expectHome(page);

  await open(page, "/account/security", testInfo);
  const section = page.locator("#passkeys");
  const add = section.getByRole("form", { name: "Add a passkey" });
  await expect(add.getByLabel("Current password")).toHaveCount(0);
  await section.getByRole("button", { name: "Send code" }).click();
  await expect(page.getByText("We have emailed you a code to confirm.").first()).toBeVisible();
  await add.getByLabel("Passkey name").fill("Phone");
  await add.getByLabel("Verification code").fill(await latestCode(request, account.email, /add a passkey/i));
  await add.getByRole("button", { name: "Continue" }).click();
  await expect(section.getByText("Confirmed. Create the passkey Phone")).toBeVisible();
  if (hasJavaScript(testInfo)) await expect(section.getByRole("button", { name: "Create passkey" })).toBeVisible();
  else await expect(section.getByText("Creating a passkey needs JavaScript")).toBeVisible();
});

test("add a passkey, sign in with it (also with two-factor on, without a code), see its use, remove it", async ({ page, request }, testInfo) => {
  test.skip(!hasJavaScript(testInfo), "passkeys need JavaScript");
  test.slow();
  await addVirtualAuthenticator(page);
  await allowAutofillSwitch(page);
  await allowWebAuthnJsonSwitch(page);
  const user = await createUser({ emailPrefix: "passkey" });

  await open(page, onLocalhost(testInfo, "/login"), testInfo);
  await submitSignIn(page, user);
  await expectHome(page);

  // Add 'Laptop': the name and the current password first (a wrong one confirms nothing), then the prompt.
  await open(page, onLocalhost(testInfo, "/account/security"), testInfo);
  const section = page.locator("#passkeys");
  const add = section.getByRole("form", { name: "Add a passkey" });
  await add.getByRole("button", { name: "Continue" }).click();
  await expect(add.getByText("Please enter a passkey name")).toBeVisible();
  await add.getByLabel("Passkey name").fill("Laptop");
  await add.getByLabel("Current password").fill("not-my-password");
  await add.getByRole("button", { name: "Continue" }).click();
  await expect(add.getByText("The password is incorrect.")).toBeVisible();
  await expect(section.getByRole("button", { name: "Create passkey" })).toHaveCount(0);
  await add.getByLabel("Current password").fill(user.password);
  await add.getByRole("button", { name: "Continue" }).click();
  // The confirmation lasts 5 minutes: once it has ended, the form comes back saying why.
  await expect(section.getByText("Confirmed. Create the passkey Laptop")).toBeVisible();
  await withDatabase(async (db) => {
    const { id } = await db.selectFrom("users").select("id").where("email", "=", user.email).executeTakeFirstOrThrow();
    await db.updateTable("passkey_confirmations").set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where("user_id", "=", id).execute();
  });
  await section.getByRole("button", { name: "Create passkey" }).click();
  await expect(add.getByRole("alert").filter({ hasText: "Please confirm it is you again before adding a passkey." })).toBeVisible();
  await add.getByLabel("Passkey name").fill("Laptop");
  await add.getByLabel("Current password").fill(user.password);
  await add.getByRole("button", { name: "Continue" }).click();
  await section.getByRole("button", { name: "Create passkey" }).click();
  const laptop = section.getByRole("listitem").filter({ hasText: "Laptop" });
  await expect(laptop).toBeVisible();
  await expect(laptop).toContainText("Never used");
  await expect(section.getByRole("status")).toHaveText("Passkey added.");
  // The confirmation was used up: the form is back for the next one.
  await expect(add.getByLabel("Passkey name")).toHaveValue("");
  await latestMail(request, user.email, /^A passkey was added to your account$/);

  // Sign out, then in with the passkey: Chromium parses and serialises WebAuthn's JSON itself, so the
  // sign-in page does not load @simplewebauthn/browser (the security page's 'Create passkey' did).
  const scripts = watchScripts(page);
  await logOutThenSignInWithAPasskey(page);
  await expectHome(page);

  await open(page, onLocalhost(testInfo, "/account/security"), testInfo);
  await expect(laptop).toContainText(/Last used \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);

  // With two-factor on, a passkey still signs in at once: no code is asked.
  await turnOnTwoFactorInTheDatabase(user.email);
  await logOutThenSignInWithAPasskey(page);
  await expectHome(page);

  // Where the browser offers passkeys in the Email field's autofill, the sign-in page waits for one:
  // the virtual authenticator picks it at once.
  await setAutofill(page, true);
  const signedOut = page.waitForURL(/\/login$/, { waitUntil: "commit" });
  await page.getByRole("button", { name: "Log Out" }).click();
  await signedOut;
  await expect(page).toHaveURL(onLocalhost(testInfo, "/"));
  await expectHome(page);
  expect(await webAuthnLibraryAmong(page, scripts)).toBe(false);

  // A browser without those JSON methods signs in through the library, loaded then: with the button, and
  // from autofill.
  await setWebAuthnJson(page, false);
  await logOutThenSignInWithAPasskey(page);
  await expectHome(page);
  await setAutofill(page, true);
  const signedOutAgain = page.waitForURL(/\/login$/, { waitUntil: "commit" });
  await page.getByRole("button", { name: "Log Out" }).click();
  await signedOutAgain;
  await expect(page).toHaveURL(onLocalhost(testInfo, "/"));
  await expectHome(page);
  expect(await webAuthnLibraryAmong(page, scripts)).toBe(true);
  await setWebAuthnJson(page, true);

  // Remove it: it is gone from the list, and the browser's passkey no longer signs in.
  await open(page, onLocalhost(testInfo, "/account/security"), testInfo);
  await laptop.getByRole("button", { name: "Remove" }).click();
  await expect(section.getByText("No passkeys yet.")).toBeVisible();
  await expect(section.getByRole("listitem")).toHaveCount(0);
  await logOutThenSignInWithAPasskey(page);
  await expect(page.getByRole("alert").filter({ hasText: "This passkey is not registered with any account" })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/login");
});
