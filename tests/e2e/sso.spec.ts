import { expect, test, type APIRequestContext } from "@playwright/test";
import { createUser, expectHome, hasJavaScript, open } from "./support";

async function ssoToken(request: APIRequestContext, user: { email: string; password: string }) {
  const login = await request.post("/api/user/login", { data: user });
  const bearer = (await login.json()).data.token as string;
  const minted = await request.post("/api/auth/sso-token", { headers: { Authorization: `Bearer ${bearer}` } });
  expect(minted.status()).toBe(200);
  return (await minted.json()).data.access_token as string;
}

test.describe("single sign-on by token", () => {
  test("without a token the link is broken", async ({ page }, testInfo) => {
    await open(page, "/login-sso", testInfo);
    await expect(page.getByText("Looks like the link is broken, plesae try again!")).toBeVisible();
  });

  test("a good token signs in and goes to the redirect target, once only", async ({ page, request, context }, testInfo) => {
    const user = await createUser();
    const token = await ssoToken(request, user);
    await open(page, `/login-sso?token=${encodeURIComponent(token)}&redirect=%2Fbilling`, testInfo);
    if (!hasJavaScript(testInfo)) {
      await expect(page.getByText("Please wait, while we redirect...")).toBeVisible();
      await page.getByRole("button", { name: "Continue" }).click();
    }
    await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/billing");

    // Signed in, the same link just goes on; signed out, it no longer works.
    await context.clearCookies();
    await open(page, `/login-sso?token=${encodeURIComponent(token)}`, testInfo);
    if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "This sign-in link is invalid or has expired." })).toBeVisible();
  });

  test("a bad token is refused; an unsafe redirect goes home", async ({ page, request }, testInfo) => {
    await open(page, "/login-sso?token=not-a-real-token", testInfo);
    if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert").filter({ hasText: /invalid or has expired|SSO login failed/ })).toBeVisible();

    const user = await createUser();
    const token = await ssoToken(request, user);
    await open(page, `/login-sso?token=${encodeURIComponent(token)}&redirect=${encodeURIComponent("https://evil.example/")}`, testInfo);
    if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue" }).click();
    await expectHome(page);
  });
});
