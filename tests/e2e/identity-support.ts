import type { APIRequestContext, Page, TestInfo } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { hasJavaScript } from "../support/e2e";
import { expect } from "../support/fixtures";

/**
 * Signs in at the identity sandbox's Google or Apple page as `person`. Apple answers by form_post: a page
 * that posts itself with JavaScript, or by its own Continue button without, pressed once the sign-in page
 * has gone (pressed before, it was the sign-in page's Continue a second time, and the sign-in stalled).
 */
export async function approveAtProvider(page: Page, testInfo: TestInfo, provider: "Google" | "Apple", person: { email: string; name: string }) {
  await page.waitForURL(new RegExp(`/dev/oidc/${provider.toLowerCase()}/`));
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Name").fill(person.name);
  await page.getByRole("button", { name: "Continue" }).click();
  if (provider === "Apple" && !hasJavaScript(testInfo)) {
    await expect(page.getByLabel("Email")).toHaveCount(0);
    await page.getByRole("button", { name: "Continue" }).click();
  }
}

/**
 * A page of its own, in the test's context, for a desktop hand-off (Playwright closes it when the test ends).
 * The hand-off ends on a page that sends the browser to the vpnapp:// scheme, and the worker's reused page
 * (decision 052) then swallowed the next test's first form post or click: every failure of two CI-like runs on a
 * slow machine (a password sign-in staying on /login with no error, a sign-in code never sent, 'Set up' not
 * opening) came in the test after one that had ended on the hand-off page in the same page.
 */
export function handOffPage(page: Page): Promise<Page> {
  return page.context().newPage();
}

/** The authenticator app: the code of a setup key, `stepsAhead` 30-second steps from now. */
export function authenticatorCode(setupKey: string, stepsAhead = 0): string {
  const totp = new TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(setupKey) });
  return totp.generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

/** Six digits the app would not show now (none of the steps the server accepts). */
export function wrongAuthenticatorCode(setupKey: string): string {
  const valid = new Set([-1, 0, 1, 2].map((steps) => authenticatorCode(setupKey, steps)));
  return ["000000", "111111", "222222", "333333", "444444"].find((code) => !valid.has(code))!;
}

/**
 * Turns two-factor on for an account with a password through the API, as an app would ('Set up', then
 * 'Turn on' with the app's code and the password): for specs about what it changes elsewhere. Sign the
 * page in first: a sign-in after this asks for the second factor. Answers the setup key and the recovery codes.
 */
export async function turnOnTwoFactorThroughApi(request: APIRequestContext, user: { email: string; password: string }) {
  const login = await request.post("/api/user/login", { data: user });
  expect(login.status(), await login.text()).toBe(200);
  const headers = { Authorization: `Bearer ${(await login.json()).data.token as string}` };
  const setup = await request.post("/api/account/two-factor/setup", { headers });
  const setupKey = (await setup.json()).data.secret as string;
  const enabled = await request.post("/api/account/two-factor/enable", { headers, data: { code: authenticatorCode(setupKey), password: user.password } });
  expect(enabled.status(), await enabled.text()).toBe(200);
  return { setupKey, recoveryCodes: (await enabled.json()).data.recovery_codes as string[] };
}
