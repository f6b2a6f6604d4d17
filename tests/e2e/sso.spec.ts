import { expect, test, type APIRequestContext } from "@playwright/test";
import { hashToken } from "../../api/platform/tokens";
import { createUser, expectHome, open, withDatabase } from "../support/e2e";

async function ssoToken(request: APIRequestContext, user: { email: string; password: string }) {
  const login = await request.post("/api/user/login", { data: user });
  const bearer = (await login.json()).data.token as string;
  const minted = await request.post("/api/auth/sso-token", { headers: { Authorization: `Bearer ${bearer}` } });
  expect(minted.status()).toBe(200);
  return (await minted.json()).data.access_token as string;
}

/** When the SSO token was used up (null while it is not). */
function usedAt(token: string) {
  return withDatabase(async (db) => {
    const row = await db.selectFrom("one_time_tokens").select("used_at").where("token_hash", "=", hashToken(token)).executeTakeFirstOrThrow();
    return row.used_at;
  });
}

// Every case runs with JavaScript off and on (the no-js and js projects): the exchange is the
// button's post in both, never a side effect of opening the link.
test.describe("single sign-on by token", () => {
  test("without a token the link is broken", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/login-sso", testInfo);
    await expect(page.getByText("Looks like the link is broken, plesae try again!")).toBeVisible();
  });

  test("a good token shows whose account it opens and signs in only on 'Continue as', once", async ({ page, request, context }, testInfo) => {
    const user = await createUser();
    const token = await ssoToken(request, user);
    await open(page, `/login-sso?token=${encodeURIComponent(token)}&redirect=%2Fbilling`, testInfo);
    const continueAs = page.getByRole("button", { name: `Continue as ${user.email}` });
    await expect(continueAs).toBeVisible();
    await expect(page.getByText(user.email, { exact: true })).toBeVisible();
    // Opening the link (and hydrating, with JavaScript) signed no one in and left the token unused.
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain("__session");
    expect(await usedAt(token)).toBeNull();

    await continueAs.click();
    await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/billing");
    expect(await usedAt(token)).not.toBeNull();

    // Signed out, the same link no longer works: said on arrival, with no button to press.
    await context.clearCookies();
    await open(page, `/login-sso?token=${encodeURIComponent(token)}`, testInfo);
    await expect(page.getByRole("alert").filter({ hasText: "This sign-in link is invalid or has expired." })).toBeVisible();
    await expect(page.getByRole("button", { name: /^Continue as/ })).toHaveCount(0);
    await page.getByRole("link", { name: "Go to sign in" }).click();
    await expect(page).toHaveURL(/\/login$/);
  });

  test("someone else's link can be declined: 'Not you?' leads to sign in and keeps the visitor signed out", async ({ page, request, context }, testInfo) => {
    const attacker = await createUser();
    const token = await ssoToken(request, attacker);
    await open(page, `/login-sso?token=${encodeURIComponent(token)}&redirect=%2Fpricing`, testInfo);
    await expect(page.getByRole("button", { name: `Continue as ${attacker.email}` })).toBeVisible();
    await page.getByRole("link", { name: "Not you? Sign in to your own account" }).click();
    await expect(page).toHaveURL(/\/login$/);
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain("__session");
    expect(await usedAt(token)).toBeNull();
  });

  test("a bad token is refused; a token used up after the page opened is refused on the post", async ({ page, request }, testInfo) => {
    await open(page, "/login-sso?token=not-a-real-token", testInfo);
    await expect(page.getByRole("alert").filter({ hasText: "This sign-in link is invalid or has expired." })).toBeVisible();
    await expect(page.getByRole("heading", { name: "We couldn't sign you in" })).toBeVisible();

    const user = await createUser();
    const token = await ssoToken(request, user);
    await open(page, `/login-sso?token=${encodeURIComponent(token)}`, testInfo);
    // Used elsewhere meanwhile (single use).
    expect((await request.post("/api/auth/sso-login-with-token", { data: { access_token: token } })).status()).toBe(200);
    await page.getByRole("button", { name: `Continue as ${user.email}` }).click();
    await expect(page.getByRole("alert").filter({ hasText: "This sign-in link is invalid or has expired." })).toBeVisible();
    await expect(page.getByRole("heading", { name: "We couldn't sign you in" })).toBeVisible();
  });

  test("an unsafe redirect goes home", async ({ page, request }, testInfo) => {
    const user = await createUser();
    const token = await ssoToken(request, user);
    await open(page, `/login-sso?token=${encodeURIComponent(token)}&redirect=${encodeURIComponent("https://evil.example/")}`, testInfo);
    await page.getByRole("button", { name: `Continue as ${user.email}` }).click();
    await expectHome(page);
  });
});
