import { expect, test, type Page } from "@playwright/test";
import { emptyBrowserCache, enterCode, expectHome, hasJavaScript, latestCode, open, withDatabase } from "../support/e2e";
import { uniqueEmail } from "../support/emails";

const continueButton = (page: Page) => page.getByRole("button", { name: "Continue", exact: true });

async function startSignUp(page: Page, testInfo: Parameters<typeof open>[2], email: string, marketing = false) {
  await open(page, "/login", testInfo);
  await page.getByRole("tab", { name: "Sign Up" }).click();
  await expect(page.getByRole("tab", { name: "Sign Up" })).toHaveAttribute("aria-selected", "true");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" }).check();
  if (marketing) await page.getByRole("checkbox", { name: "Send me news and offers by email" }).check();
  await continueButton(page).click();
  await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
}

test.describe("sign-up", () => {
  test("the whole sign-up: email and consent, emailed code, password, signed in @smoke", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("signup");
    await startSignUp(page, testInfo, email, true);
    await expect(page.getByText("Verification code sent to your email!")).toBeVisible();
    await expect(page.getByText(email)).toBeVisible();

    await enterCode(page, await latestCode(request, email));
    await continueButton(page).click();

    await page.getByLabel("Password", { exact: true }).fill("a-strong-password");
    await page.getByLabel("Confirm Password").fill("a-strong-password");
    await page.getByRole("button", { name: "Finish" }).click();
    await expectHome(page);
    await expect(page.getByText("Verification successful!")).toBeVisible();
    await expect(page.getByText(email)).toBeVisible();

    const stored = await withDatabase((db) => db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow());
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    expect(stored.agreement_at).not.toBeNull();
    expect(Number(stored.newsletter)).toBe(1);
    expect(stored.email_verified_at).not.toBeNull();
  });

  test("step 1 messages: a bad email and the missing terms", async ({ page }, testInfo) => {
    await open(page, "/login?tab=signup", testInfo);
    await page.getByLabel("Email", { exact: true }).fill("not-an-email");
    await continueButton(page).click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(page.getByText("You must agree to terms and conditions")).toBeVisible();
    await expect(page.getByLabel("Email", { exact: true })).toHaveValue("not-an-email");
  });

  test("step 2: Resend Code is disabled with its countdown, a short or wrong code is refused", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("signup");
    await startSignUp(page, testInfo, email);
    const resend = page.getByRole("button", { name: "Resend Code" });
    await expect(resend).toBeDisabled();
    await expect(resend).toHaveText(/Resend Code \((30|29|28|27)s\)/);

    await enterCode(page, "123");
    await continueButton(page).click();
    await expect(page.getByText("Please enter the 6-digit verification code")).toBeVisible();

    const code = await latestCode(request, email);
    const wrong = code === "000000" ? "111111" : "000000";
    await enterCode(page, wrong);
    await continueButton(page).click();
    await expect(page.getByLabel("Verification code")).toHaveAccessibleDescription("Invalid verification code");
    await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();

    if (hasJavaScript(testInfo)) {
      // React counts down; the server said 30 s, so a few seconds later the number is lower.
      await expect(resend).toHaveText(/\((2[0-7]|1\d)s\)/, { timeout: 12_000 });
    }
  });

  test("step 3 messages: empty, different and short passwords", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("signup");
    await startSignUp(page, testInfo, email);
    await enterCode(page, await latestCode(request, email));
    await continueButton(page).click();
    const finish = page.getByRole("button", { name: "Finish" });

    await finish.click();
    await expect(page.getByText("Please fill in all fields")).toBeVisible();

    await page.getByLabel("Password", { exact: true }).fill("a-strong-password");
    await page.getByLabel("Confirm Password").fill("another-password");
    await finish.click();
    await expect(page.getByText("Passwords do not match")).toBeVisible();

    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByLabel("Confirm Password").fill("short");
    await finish.click();
    await expect(page.getByText("Password must be at least 8 characters")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Welcome to the product!" })).toHaveCount(0);
  });

  test("the step survives a refresh and a second tab", async ({ page, context, request }, testInfo) => {
    const email = uniqueEmail("signup");
    await startSignUp(page, testInfo, email);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
    const second = await context.newPage();
    await second.goto("/login?tab=signup");
    await expect(second.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
    await expect(second.getByText(email)).toBeVisible();
    await second.close();
    await page.getByRole("button", { name: "Use a different email" }).click();
    await expect(page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" })).toBeVisible();
    expect(await latestCode(request, email)).toMatch(/^\d{6}$/);
  });
});

test("a code that expires before Finish sends the person back to the code step", async ({ page, request }, testInfo) => {
  const email = uniqueEmail("signup-expired");
  await startSignUp(page, testInfo, email);
  await enterCode(page, await latestCode(request, email));
  await continueButton(page).click();
  await expect(page.getByLabel("Confirm Password")).toBeVisible();
  // The code's time runs out (the API owns it; here the row is aged directly).
  await withDatabase((db) =>
    db.updateTable("verification_codes").set({ expires_at: new Date(Date.now() - 1_000).toISOString() }).where("email", "=", email).execute(),
  );
  await page.getByLabel("Password", { exact: true }).fill("a-strong-password");
  await page.getByLabel("Confirm Password").fill("a-strong-password");
  await page.getByRole("button", { name: "Finish" }).click();
  await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
  await expect(page.getByLabel("Verification code")).toHaveAccessibleDescription(/expired|Invalid verification code/);
});

// The sign-up tab's code loads only when that tab is shown (/login's JS budget, issue 31); with JavaScript the
// page must look and behave as if it had come with the page.
test.describe("the sign-up tab's code, loaded when that tab is shown", () => {
  const signUpCode = "**/build/_shared/sign-up-*.js";

  /** Holds the sign-up tab's code on its way until the returned function is called. */
  async function holdSignUpCode(page: Page) {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let requested = () => {};
    const requestedOnce = new Promise<void>((resolve) => {
      requested = resolve;
    });
    await page.route(signUpCode, async (route) => {
      requested();
      await released;
      await route.continue();
    });
    return { requested: requestedOnce, release };
  }

  test("the sign-in tab does not download it; switching tabs keeps the sign-in form until the sign-up form replaces it", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "code loading is the js project's");
    await emptyBrowserCache(page);
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    const held = await holdSignUpCode(page);
    await open(page, "/login", testInfo);
    await page.waitForLoadState("networkidle");
    expect(scripts.filter((script) => /\/sign-up-/.test(script))).toEqual([]);

    // Records whether the tab panel is ever left without a form.
    await page.evaluate(() => {
      const panel = document.querySelector('[role="tabpanel"]')!;
      const record = window as unknown as { panelEmptied: boolean };
      record.panelEmptied = false;
      new MutationObserver(() => {
        if (!panel.querySelector("form")) record.panelEmptied = true;
      }).observe(panel, { childList: true, subtree: true });
    });
    await page.getByRole("tab", { name: "Sign Up" }).click();
    await held.requested;
    await expect(page.getByLabel("Password", { exact: true })).toBeVisible();
    await expect(page.getByRole("tab", { name: "Sign In" })).toHaveAttribute("aria-selected", "true");
    held.release();
    await expect(page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" })).toBeVisible();
    await expect(page.getByRole("tab", { name: "Sign Up" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByLabel("Password", { exact: true })).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { panelEmptied: boolean }).panelEmptied)).toBe(false);
  });

  test("?tab=signup: what is typed before the code has come stays, in the same fields, once it has", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "code loading is the js project's");
    const held = await holdSignUpCode(page);
    await open(page, "/login?tab=signup", testInfo);
    await held.requested;
    const email = page.getByLabel("Email", { exact: true });
    const terms = page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" });
    await email.fill("typed-early@example.com");
    await terms.check();
    // React's own mark on a node it has hydrated; the server's field is kept if it gains one.
    const hydrated = () => email.evaluate((input) => Object.keys(input).some((key) => key.startsWith("__reactFiber")));
    expect(await hydrated()).toBe(false);
    await email.evaluate((input) => Object.assign(input, { typedBeforeHydration: true }));
    held.release();
    await expect.poll(hydrated).toBe(true);
    expect(await email.evaluate((input) => (input as unknown as { typedBeforeHydration?: boolean }).typedBeforeHydration)).toBe(true);
    await expect(email).toHaveValue("typed-early@example.com");
    await expect(terms).toBeChecked();
  });
});
