import { expect, test } from "@playwright/test";
import { createUser, DEMO, emptyBrowserCache, expectHome, hasJavaScript, open, signIn } from "../support/e2e";

test.describe("password sign-in", () => {
  test("the sign-in page shows what identity §2 lists", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/login", testInfo);
    await expect(page.getByRole("tab", { name: "Sign In" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("tab", { name: "Sign Up" })).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveAttribute("type", "email");
    await expect(page.getByLabel("Password")).toHaveAttribute("type", "password");
    await expect(page.getByRole("link", { name: "Forgot your password?" })).toHaveAttribute("href", "/forget-password");
    await expect(page.getByRole("link", { name: "Get Sign In Code" })).toHaveAttribute("href", "/get-code");
    await expect(page.getByText("or", { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: /Google/ })).toBeVisible();
    await expect(page.getByRole("button", { name: /Apple/ })).toBeVisible();
    await expect(page.getByRole("link", { name: "VPN home" })).toHaveAttribute("href", "/");
  });

  test("empty form reads 'User and password'", async ({ page }, testInfo) => {
    await open(page, "/login", testInfo);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("User and password")).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/login");
  });

  test("a malformed email gets its message next to the field and keeps the input", async ({ page }, testInfo) => {
    await open(page, "/login", testInfo);
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").fill("whatever-password");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue("not-an-email");
    await expect(page.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  });

  test("with JavaScript, the checks load when the form is first used and run on leaving a field", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "checking as you go needs scripts");
    await emptyBrowserCache(page);
    const scripts: string[] = [];
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
      if (request.method() === "POST") posts.push(request.url());
    });
    await open(page, "/login", testInfo);
    await page.waitForLoadState("networkidle");
    const loadedForTheView = scripts.length;
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").focus();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    // The schema's code came when the form was used, not with the page; nothing was sent to the server.
    expect(scripts.length).toBeGreaterThan(loadedForTheView);
    expect(posts).toEqual([]);
  });

  test("a missing password is named", async ({ page }, testInfo) => {
    await open(page, "/login", testInfo);
    await page.getByLabel("Email").fill(DEMO.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Password is required")).toBeVisible();
  });

  test("a wrong password shows the server's message and keeps the email", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, { email: user.email, password: "wrong-password" });
    await expect(page.getByRole("alert").filter({ hasText: "These credentials do not match our records." })).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue(user.email);
    // Without JavaScript the page is re-rendered and a password is never echoed into HTML; with it, the
    // typed password stays so a typo can be fixed.
    if (!hasJavaScript(testInfo)) await expect(page.getByLabel("Password")).toHaveValue("");
    expect(new URL(page.url()).pathname).toBe("/login");
  });

  test("the demo account signs in and sees the account home @smoke", async ({ page }, testInfo) => {
    await signIn(page, testInfo, DEMO);
    await expectHome(page);
    await expect(page.getByText("Your Passport to Online Freedom!")).toBeVisible();
    await expect(page.getByText(DEMO.email)).toBeVisible();
  });

  test("a signed-in visitor on /login goes home, or to a safe oldurl", { tag: "@once" }, async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    await open(page, "/login", testInfo);
    await expectHome(page);
    await open(page, "/login?oldurl=%2Fbilling", testInfo);
    await expect(page).toHaveURL(/\/billing$/);
    await expect(page.getByRole("heading", { name: "Billing" })).toBeVisible();
  });
});
