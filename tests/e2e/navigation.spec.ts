import { expect, test } from "@playwright/test";
import { createUser, expectHome, hasJavaScript, open, signIn, submitSignIn, withDatabase } from "../support/e2e";

test.describe("route guard and redirects", () => {
  test("an anonymous visitor goes to sign in with oldurl and comes back after it", async ({ page }, testInfo) => {
    const user = await createUser();
    await open(page, "/billing?tab=history", testInfo);
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(new URL(page.url()).searchParams.get("oldurl")).toBe("/billing?tab=history");
    await submitSignIn(page, user);
    await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/billing?tab=history");
  });

  test("the root sends anonymous visitors to /login without oldurl", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/", testInfo);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/login");
  });

  // Open-redirect attempts through sign-in: security.spec.ts ("open redirects"), over HTTP and in the browser.

  test("/account redirects home", { tag: "@once" }, async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await open(page, "/account", testInfo);
    await expectHome(page);
  });
});

test.describe("side navigation and logout", () => {
  test("moves through the side navigation and logs out", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Billing" }).click();
    await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
    await nav.getByRole("link", { name: "Connected Devices" }).click();
    await expect(page.getByRole("heading", { name: "Connected Devices" })).toBeVisible();
    await nav.getByRole("link", { name: "My Account" }).click();
    await expectHome(page);
    await expect(nav.getByRole("link", { name: "My Account" })).toHaveAttribute("aria-current", "page");
    await page.getByRole("button", { name: "Log Out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await open(page, "/", testInfo);
    await expect(page).toHaveURL(/\/login$/);
  });

  test("logout revokes the API token", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await page.getByRole("button", { name: "Log Out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    const live = await withDatabase((db) =>
      db
        .selectFrom("tokens")
        .innerJoin("users", "users.id", "tokens.user_id")
        .where("users.email", "=", user.email)
        .where("tokens.revoked_at", "is", null)
        .select("tokens.id")
        .execute(),
    );
    expect(live).toHaveLength(0);
  });

  test("a token revoked elsewhere signs the user out on the next request", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await withDatabase(async (db) => {
      const row = await db.selectFrom("users").where("email", "=", user.email).select("id").executeTakeFirstOrThrow();
      await db.updateTable("tokens").set({ revoked_at: new Date().toISOString() }).where("user_id", "=", row.id).execute();
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Billing" }).click();
    await expect(page).toHaveURL(/\/login\?oldurl=%2Fbilling$/);
    await expect(page.getByRole("alert").filter({ hasText: "Your session has ended. Please sign in again." })).toBeVisible();
    await expect(page.getByRole("button", { name: "Continue", exact: true })).toBeVisible();
  });

  test("on a small screen the menu is a drawer", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 800 });
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Billing" })).toBeHidden();
    await page.getByRole("button", { name: "Menu", exact: true }).click();
    await expect(nav.getByRole("link", { name: "Billing" })).toBeVisible();
    await nav.getByRole("link", { name: "Billing" }).click();
    await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
    if (hasJavaScript(testInfo)) {
      // With JavaScript the drawer closes itself after navigating.
      await expect(nav.getByRole("link", { name: "Billing" })).toBeHidden();
    }
  });
});

test.describe("not found", () => {
  test("an unknown path shows the spec's page with a 404 status", async ({ page }, testInfo) => {
    const response = await open(page, "/no-such-page", testInfo);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Oops! The page you are looking is not found!" })).toBeVisible();
    await page.getByRole("link", { name: "Back to home" }).click();
    await expect(page).toHaveURL(/\/login$/);
  });

  test("signed in, the 404 page knows the customer: 'My Account', not 'Sign in' (issue 33)", async ({ page }, testInfo) => {
    await signIn(page, testInfo, await createUser());
    await expectHome(page);
    const response = await open(page, "/no-such-page", testInfo);
    expect(response?.status()).toBe(404);
    expect(response?.headers()["cache-control"]).toBe("private, no-store");
    await expect(page.getByRole("heading", { name: "Oops! The page you are looking is not found!" })).toBeVisible();
    const header = page.getByRole("banner");
    await expect(header.getByRole("link", { name: "Sign in" })).toHaveCount(0);
    await header.getByRole("link", { name: "My Account" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("article", { name: "Subscription" })).toBeVisible();
  });
});
