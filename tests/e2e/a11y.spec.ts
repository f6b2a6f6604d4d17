import AxeBuilder from "@axe-core/playwright";
import { type BrowserContext, type Page, type TestInfo, test as base, expect } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { createPasswordlessUser, createUser, DEMO, enterCode, hasJavaScript, latestCode, open, signIn, uniqueEmail, withDatabase } from "./support";
import { VISITOR_PAGES } from "./pages";

// Accessibility (issue 11): axe-core on every page of the portal, signed out and signed in, with
// JavaScript off and on, expects no violation of any rule axe runs by default (WCAG 2.x A and AA and
// its best practices: landmarks, heading order, one h1, ...).
//
// How the JavaScript-off project scans: axe is script injected into the page, and Playwright evaluates
// nothing in a page whose context has JavaScript disabled (with Playwright 1.65 AxeBuilder.analyze()
// just hangs until the test times out, and so does page.evaluate(), even after re-enabling scripts
// through CDP). So the no-js project drives the flows in its JavaScript-off browser as a visitor would,
// keeps the HTML of the last document the server answered, and scans that HTML as a JavaScript-off
// browser shows it: its <script> elements removed and its <noscript> contents unwrapped (a browser
// with scripting off parses them as markup), served at the same URL (so its stylesheet applies and
// colour contrast is real) to a page of a separate, script-enabled context, where only axe runs.

type ScanOptions = {
  /** Opens every <details> first (accordions, 'Got a coupon?'), so their contents are checked too. */
  openDetails?: boolean;
  /** What the visitor does first without leaving the page (e.g. opens the CSS drawer), done on the scanned page. */
  prepare?: (target: Page) => Promise<void>;
  /**
   * Leaves out axe's meta-refresh rule: 'Payment Successful!' must go home after its 300 s countdown
   * without JavaScript too (commerce §3), which only a timed refresh does. The countdown is shown and
   * 'Go to my account' leads to the same place; nothing is lost when it fires.
   */
  specTimedRedirect?: boolean;
};

type Axe = {
  /** Scans the page as the visitor sees it now, and records its violations under `label`. */
  check(label: string, options?: ScanOptions): Promise<void>;
  /** Scans an HTML answer (e.g. of a plain POST) as a JavaScript-off browser would render it at `url`. */
  checkHtml(label: string, url: string, html: string): Promise<void>;
};

const test = base.extend<{ axe: Axe }>({
  axe: async ({ page, browser }, use, testInfo) => {
    const javaScript = hasJavaScript(testInfo);
    let lastDocument: Promise<{ url: string; html: string }> | null = null;
    page.on("response", (response) => {
      const request = response.request();
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
      if (response.status() >= 300 && response.status() < 400) return;
      lastDocument = response.text().then((html) => ({ url: response.url(), html }));
    });

    let scanContext: BrowserContext | null = null;
    const staticScan = async (label: string, url: string, html: string, options: ScanOptions = {}) => {
      scanContext ??= await browser.newContext({ javaScriptEnabled: true, viewport: page.viewportSize() });
      const scanPage = await scanContext.newPage();
      try {
        await scanPage.route(
          (candidate) => candidate.href === url,
          (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: asWithoutJavaScript(html) }),
        );
        await scanPage.goto(url);
        await record(label, scanPage, options);
      } finally {
        await scanPage.close();
      }
    };

    const record = async (label: string, target: Page, options: ScanOptions) => {
      if (options.openDetails) await openAllDetails(target);
      await options.prepare?.(target);
      const builder = new AxeBuilder({ page: target });
      if (options.specTimedRedirect) builder.disableRules(["meta-refresh"]);
      const { violations } = await builder.analyze();
      const found = violations.flatMap((violation) =>
        violation.nodes.map((node) => `${violation.id} (${violation.impact}): ${violation.help} at ${node.target.join(" ")}`),
      );
      expect.soft(found, `axe violations on ${label} (${javaScript ? "JavaScript on" : "JavaScript off"})`).toEqual([]);
    };

    await use({
      async check(label, options = {}) {
        if (javaScript) return record(label, page, options);
        if (!lastDocument) throw new Error(`No document was loaded before scanning ${label}`);
        const { url, html } = await lastDocument;
        await staticScan(label, url, html, options);
      },
      async checkHtml(label, url, html) {
        await staticScan(label, url, html);
      },
    });
    await (scanContext as BrowserContext | null)?.close();
  },
});

/** What a browser with scripting disabled makes of the server's HTML: no scripts, <noscript> as markup. */
function asWithoutJavaScript(html: string): string {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "")
    .replace(/<\/?noscript>/gi, "");
}

async function openAllDetails(page: Page) {
  // An exclusive accordion (<details name>) keeps one open: drop the grouping to open them all.
  await page.locator("details").evaluateAll((items) =>
    items.forEach((item) => {
      item.removeAttribute("name");
      (item as HTMLDetailsElement).open = true;
    }),
  );
}

const NARROW = { width: 390, height: 844 };
const GOOD_CARD = "4242 4242 4242 4242";

/** Signs in with JavaScript off or on, as the project runs, and lands on `path`. */
async function signedInAt(page: Page, testInfo: TestInfo, path: string, user: { email: string; password: string } = DEMO) {
  await signIn(page, testInfo, user, path === "/" ? "/login" : `/login?oldurl=${encodeURIComponent(path)}`);
  await expect(page).toHaveURL((url) => `${url.pathname}${url.search}` === path);
  if (hasJavaScript(testInfo)) await page.locator("html[data-hydrated]").waitFor();
}

/** The identity sandbox's page (DESIGN §2): 'Email', 'Name', 'Continue'; Apple's form_post needs a click without JavaScript. */
async function approveAtGoogle(page: Page, person: { email: string; name: string }) {
  await page.waitForURL(/\/dev\/oidc\/google\//);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Name").fill(person.name);
  await page.getByRole("button", { name: "Continue" }).click();
}

test.describe("signed out", () => {
  const pages = VISITOR_PAGES;
  for (const path of pages) {
    test(`${path}`, async ({ page, axe }, testInfo) => {
      await open(page, path, testInfo);
      // Closed accordions ('Card', 'Crypto Currencies', 'Got a coupon?') are checked open too.
      await axe.check(path, { openDetails: true });
    });
  }

  test("narrow screens", async ({ page, axe }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    await page.setViewportSize(NARROW);
    for (const path of ["/login", "/pricing", "/subscription/payment/6"]) {
      await open(page, path, testInfo);
      await axe.check(`${path} (narrow)`);
    }
  });

  test("the error page of a request the page did not expect (the 503 page has the same markup)", async ({ page, axe }, testInfo) => {
    // The 503 page needs an unreachable API, which the embedded one never is here. A form the
    // checkout's action does not know answers 400 with the root error page.
    const heading = "We couldn't handle that request";
    if (hasJavaScript(testInfo)) {
      await open(page, "/payment/6", testInfo);
      // A native submission (not Remix's): the browser posts the form and loads the answer as a document.
      await page.evaluate(() => {
        const form = document.createElement("form");
        form.method = "post";
        form.innerHTML = '<input type="hidden" name="intent" value="no-such-form">';
        document.body.append(form);
        form.submit();
      });
      await expect(page.getByRole("heading", { name: heading })).toBeVisible();
      await page.locator("html[data-hydrated]").waitFor();
      await axe.check("the 400 page");
    } else {
      const url = new URL("/payment/6", testInfo.project.use.baseURL).href;
      const response = await page.request.post(url, { form: { intent: "no-such-form" }, headers: { Origin: new URL(url).origin } });
      expect(response.status()).toBe(400);
      const html = await response.text();
      expect(html).toContain("We couldn&#x27;t handle that request");
      await axe.checkHtml("the 400 page", url, html);
    }
  });

  test("/login-sso with a token that does not sign in", async ({ page, axe }, testInfo) => {
    // A token that opens no account is refused on arrival (the page asks the API before offering 'Continue as').
    await open(page, "/login-sso?token=not-a-real-token", testInfo);
    await expect(page.getByRole("heading", { name: "We couldn't sign you in" })).toBeVisible();
    await axe.check("/login-sso refused");
  });

  test("the sign-in form with its errors", async ({ page, axe }, testInfo) => {
    await open(page, "/login", testInfo);
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await axe.check("/login with invalid fields");
    await page.getByLabel("Email").fill("nobody@example.com");
    await page.getByLabel("Password").fill("wrong-password-123");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: /\S/ }).first()).toBeVisible();
    await axe.check("/login refused");
  });

  test("sign-up: each step, with errors", async ({ page, axe, request }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const email = uniqueEmail("a11y-signup");
    await open(page, "/login?tab=signup", testInfo);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("You must agree to terms and conditions")).toBeVisible();
    await axe.check("sign-up: email step with errors");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("checkbox", { name: "I agree to the Terms of Service and Privacy Policy" }).check();
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Confirm Code" })).toBeVisible();
    await axe.check("sign-up: code step");
    await enterCode(page, "123");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText("Please enter the 6-digit verification code")).toBeVisible();
    await axe.check("sign-up: code step with an error");
    await enterCode(page, await latestCode(request, email));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByLabel("Confirm Password")).toBeVisible();
    await axe.check("sign-up: password step");
  });

  test("code sign-in and password reset: the code and password steps", async ({ page, axe, request }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const user = await createUser();
    await open(page, "/get-code", testInfo);
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText(/Enter the code we.ve sent to/)).toBeVisible();
    await axe.check("/get-code: code step");

    await open(page, "/forget-password", testInfo);
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByText(/Enter the code we.ve sent to/)).toBeVisible();
    await axe.check("/forget-password: code step");
    await enterCode(page, await latestCode(request, user.email, /reset/i));
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByLabel("Confirm Password")).toBeVisible();
    await axe.check("/forget-password: password step");
  });

  test("the set-password page with a real token", async ({ page, axe }, testInfo) => {
    const { token } = await createPasswordlessUser();
    await open(page, `/generate-password/${token}`, testInfo);
    await axe.check("/generate-password/{token}");
  });

  test("the checkout's Verify Your Email dialog, both steps", async ({ page, axe, request }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const email = uniqueEmail("a11y-checkout");
    await open(page, "/payment/6", testInfo);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page.getByRole("dialog", { name: "Verify Your Email" })).toBeVisible();
    await axe.check("checkout: Verify Your Email, the code");
    await enterCode(page, await latestCode(request, email));
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByLabel("Confirm Password")).toBeVisible();
    await axe.check("checkout: Verify Your Email, the password");
  });

  test("desktop-app sign-in: the identity sandbox's page and the hand-off page", async ({ page, axe }) => {
    await page.goto("/desktop-app/google/login?device_os=Linux&device_brand=Dell&device_model=XPS&device_os_version=6.8");
    await page.waitForURL(/\/dev\/oidc\/google\//);
    await axe.check("the identity sandbox's sign-in page (/dev/oidc)");
    await approveAtGoogle(page, { email: uniqueEmail("a11y-desktop"), name: "Desk Top" });
    await expect(page.getByRole("link", { name: "Open the app" })).toBeVisible();
    await axe.check("/desktop-app/handoff");
  });
});

test.describe("signed in", () => {
  const pages = [
    "/",
    "/billing",
    "/billing?tab=payment-method",
    "/connected-devices",
    "/connected-devices?confirm=all",
    "/account/delete",
    "/pricing",
    "/pricing?tab=monthly",
    "/demo",
    "/subscription/payment/7",
  ];
  for (const path of pages) {
    test(`${path}`, async ({ page, axe }, testInfo) => {
      await signedInAt(page, testInfo, path);
      await axe.check(`${path} (signed in)`, { openDetails: true });
    });
  }

  test("/no-such-page", async ({ page, axe }, testInfo) => {
    await signedInAt(page, testInfo, "/");
    await open(page, "/no-such-page", testInfo);
    await axe.check("/no-such-page (signed in)");
  });

  test("the checkout with every payment method open, and the wallet sheet", async ({ page, axe }, testInfo) => {
    await signedInAt(page, testInfo, "/subscription/payment/6", await createUser());
    if (hasJavaScript(testInfo)) {
      // The wallet panels load their code when opened: open each the way a visitor does.
      for (const name of ["Apple Pay", "Google Pay"]) {
        await page.locator("summary", { hasText: new RegExp(`^${name}$`) }).click();
        await expect(page.getByRole("button", { name: `Pay with ${name}` })).toBeVisible();
      }
    }
    await axe.check("/subscription/payment/6 (signed in)", { openDetails: true });
    if (hasJavaScript(testInfo)) {
      await page.getByRole("button", { name: "Pay with Apple Pay" }).click();
      await expect(page.getByRole("dialog", { name: "Apple Pay (sandbox)" })).toBeVisible();
      await axe.check("the stand-in wallet sheet");
    }
  });

  test("two-factor authentication: set-up, the recovery codes, the sign-in step", async ({ page, axe }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const user = await createUser();
    await signedInAt(page, testInfo, "/account/two-factor", user);
    await axe.check("/account/two-factor: set-up");
    const setupKey = await page.getByLabel("Setup key").inputValue();
    const totp = new TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(setupKey) });
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByText("Please enter the 6-digit authentication code")).toBeVisible();
    await axe.check("/account/two-factor: set-up with an error");
    await page.getByLabel("Authentication code").fill(totp.generate());
    await page.getByLabel("Current password").fill(user.password);
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByRole("list", { name: "Recovery codes" })).toBeVisible();
    await axe.check("/account/two-factor: the recovery codes");
    await page.getByRole("link", { name: "Done" }).click();
    await page.getByRole("button", { name: "Log Out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expect(page).toHaveURL(/\/login\/two-factor$/);
    await axe.check("/login/two-factor");
    await page.getByRole("link", { name: "Use a recovery code" }).click();
    await expect(page.getByLabel("Recovery code")).toBeVisible();
    await axe.check("/login/two-factor?recovery=1");
    await page.getByLabel("Recovery code").fill("aaaaa-aaaaa");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByText("Invalid recovery code")).toBeVisible();
    await axe.check("/login/two-factor?recovery=1 with an error");
  });

  test("the change-password dialog, both steps", async ({ page, axe, request }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const user = await createUser();
    await signedInAt(page, testInfo, "/", user);
    await page.getByRole("button", { name: "Change Password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change Password" });
    await expect(dialog).toBeVisible();
    await axe.check("change password: the email");
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(dialog.getByText("Please Enter Confirm OTP")).toBeVisible();
    await axe.check("change password: the code");
    await dialog.getByLabel("Verification code").fill(await latestCode(request, user.email, /reset/i));
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(dialog.getByLabel("Confirm Password")).toBeVisible();
    await axe.check("change password: the new password");
  });

  test("a card purchase: the card entry, Payment Successful!, the history and the auto-renewal dialog", async ({ page, axe }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const user = await createUser();
    await signedInAt(page, testInfo, "/subscription/payment/1", user);
    if (!hasJavaScript(testInfo)) {
      await page.getByRole("button", { name: "Continue to secure payment page" }).click();
      await expect(page.getByLabel("Card number")).toBeVisible();
      await axe.check("the card sandbox's hosted payment page (/dev/stripe/checkout)");
    } else {
      await expect(page.getByLabel("Card number")).toBeVisible();
      await axe.check("the inline card form");
    }
    await page.getByLabel("Card number").fill(GOOD_CARD);
    await page.getByLabel("Expiry (MM / YY)").fill(`12 / ${(new Date().getUTCFullYear() + 4) % 100}`);
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill("Pat Payer");
    await page.getByLabel("Postal code").fill("10115");
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();
    await axe.check("Payment Successful!", { specTimedRedirect: true });

    await open(page, "/billing", testInfo);
    await expect(page.getByRole("row").filter({ hasText: "1 Month" })).toHaveCount(1);
    await axe.check("/billing with a payment");
    await page.getByRole("region", { name: "Subscription" }).getByRole("button", { name: "Cancel auto-renewal" }).click();
    await expect(page.getByRole("dialog", { name: "Cancel auto-renewal?" })).toBeVisible();
    await axe.check("/billing: Cancel auto-renewal?");
    await open(page, "/subscription/payment/6", testInfo);
    await expect(page.getByRole("heading", { name: "Pay again with" })).toBeVisible();
    await axe.check("/subscription/payment/6 with a saved card");
    await open(page, "/billing?tab=payment-method", testInfo);
    await axe.check("/billing?tab=payment-method with a card");
  });

  test("a crypto purchase: the crypto sandbox's invoice page and the due-invoice page", async ({ page, axe }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    const user = await createUser();
    await signedInAt(page, testInfo, "/subscription/payment/1", user);
    await page.getByText("Crypto Currencies", { exact: true }).click();
    await page.getByRole("button", { name: "Pay with Crypto" }).click();
    await expect(page).toHaveURL(/\/dev\/bitpay\/invoice\//);
    await axe.check("the crypto sandbox's invoice page (/dev/bitpay/invoice)");
    const invoice = await withDatabase((db) =>
      db
        .selectFrom("crypto_invoices")
        .innerJoin("users", "users.id", "crypto_invoices.user_id")
        .select("crypto_invoices.uuid")
        .where("users.email", "=", user.email)
        .executeTakeFirstOrThrow(),
    );
    const path = `/subscription/bitpay-pay-due-invoice/${invoice.uuid}`;
    await open(page, path, testInfo);
    await expect(page.getByRole("heading", { name: "Complete your BitPay Due Invoice" })).toBeVisible();
    await axe.check("the due invoice (signed in)");
    await page.context().clearCookies();
    await open(page, path, testInfo);
    await expect(page.getByRole("heading", { name: "Complete your BitPay Due Invoice" })).toBeVisible();
    await axe.check("the due invoice (visitor)");
  });

  test("narrow screens: the menu drawer, closed and open", async ({ page, axe }, testInfo) => {
    // Several pages and a flow in one test, on a machine that may be busy.
    test.slow();
    await page.setViewportSize(NARROW);
    await signedInAt(page, testInfo, "/");
    await axe.check("/ (narrow)");
    await axe.check("/ (narrow, drawer open)", {
      prepare: async (target) => {
        await target.getByRole("checkbox", { name: "Menu" }).check();
        await expect(target.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Billing" })).toBeVisible();
      },
    });
    await open(page, "/subscription/payment/6", testInfo);
    await axe.check("/subscription/payment/6 (narrow, signed in)");
  });
});

test.describe("sandbox pages (not the product's, checked because it is cheap)", () => {
  test("/dev/mailbox and /dev/clock", async ({ page, axe }) => {
    for (const path of ["/dev/mailbox", "/dev/clock"]) {
      await page.goto(path);
      await axe.check(path);
    }
  });
});
