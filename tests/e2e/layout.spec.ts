import { randomUUID } from "node:crypto";
import type { Page, TestInfo } from "@playwright/test";
import { GOOD_CARD } from "../support/cards";
import { createUser, fillSandboxCardAndPay, hasJavaScript, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// Phones and the public frame (issue 21): no page a customer meets is wider than a 320 or 390 px screen, with
// JavaScript off and on (tables scroll inside their own box); the phone menu is a button named 'Menu'; the
// public pages have the product's navigation and a footer, and the sign-in page leads to the plans.
// (scripts/page-check.ts measures every state of its walk at 320, 390 and 1280 px as well.)

const PHONES = [320, 390];

/**
 * How wide the document is and how wide the screen, from the browser's own layout metrics (through the
 * DevTools protocol: Playwright runs no script in a page whose JavaScript is off).
 */
async function widths(page: Page) {
  const session = await page.context().newCDPSession(page);
  try {
    const { cssContentSize, cssLayoutViewport } = await session.send("Page.getLayoutMetrics");
    return { page: Math.ceil(cssContentSize.width), screen: cssLayoutViewport.clientWidth };
  } finally {
    await session.detach();
  }
}

/** Opens `pathname` at each phone width (and runs `then` there) and checks that the page fits the screen. */
async function expectFitsPhones(page: Page, testInfo: TestInfo, pathname: string, then?: (page: Page) => Promise<void>) {
  for (const width of PHONES) {
    await page.setViewportSize({ width, height: 800 });
    await open(page, pathname, testInfo);
    await then?.(page);
    const measured = await widths(page);
    expect(measured.screen, `${pathname}: the screen`).toBe(width);
    expect(measured.page, `${pathname} at ${width} px is no wider than the screen`).toBeLessThanOrEqual(measured.screen);
  }
}

/**
 * Text cut by its box: elements whose own text overflows them sideways with the overflow hidden or clipped
 * (a long address in a narrow cell). Measured through the DevTools protocol's Runtime (it runs whether the
 * page's JavaScript is on or off).
 */
async function clippedText(page: Page): Promise<string[]> {
  const session = await page.context().newCDPSession(page);
  try {
    const { result } = await session.send("Runtime.evaluate", {
      returnByValue: true,
      expression: `(() => {
        const cut = [];
        for (const element of document.body.querySelectorAll("*")) {
          if (!element.checkVisibility?.() || element.clientWidth <= 1) continue; // hidden, or visually hidden for screen readers
          const style = getComputedStyle(element);
          const field = element.matches("input:not([type=hidden]), textarea");
          if (!field && !["hidden", "clip"].includes(style.overflowX) && style.textOverflow !== "ellipsis") continue;
          const ownText = field ? element.value.trim() : [...element.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent).join("").trim();
          if (ownText && element.scrollWidth > element.clientWidth + 1) cut.push(element.tagName.toLowerCase() + ": " + ownText.slice(0, 60));
        }
        return cut;
      })()`,
    });
    return result.value as string[];
  } finally {
    await session.detach();
  }
}

/** Buys plan `planId` with the good card, signed in (with the sandbox's hosted page without JavaScript). */
async function buyWithCard(page: Page, testInfo: TestInfo, planId: number) {
  await open(page, `/subscription/payment/${planId}`, testInfo);
  if (!hasJavaScript(testInfo)) await page.getByRole("button", { name: "Continue to secure payment page" }).click();
  await fillSandboxCardAndPay(page, GOOD_CARD);
  // A payment is several round trips through the card sandbox: more than a page load.
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible({ timeout: 20_000 });
}

test.describe("phones: no page is wider than the screen", () => {
  test("a visitor's pages at 320 and 390 px", { tag: "@once" }, async ({ page }, testInfo) => {
    test.slow();
    for (const pathname of ["/login", "/login?tab=signup", "/pricing", "/pricing?tab=monthly", "/subscription/payment/6", "/terms", "/privacy", "/no-such-page"]) {
      await expectFitsPhones(page, testInfo, pathname);
    }
  });

  test("/help at 320 and 390 px, once it exists", { tag: "@once" }, async ({ page, request }, testInfo) => {
    test.skip((await request.get("/help")).status() === 404, "/help is not built yet");
    await expectFitsPhones(page, testInfo, "/help");
  });

  test("a customer's pages with a payment, saved card and Add card at 320 and 390 px", async ({ page, login }, testInfo) => {
    test.slow();
    await login();
    await buyWithCard(page, testInfo, 1);
    for (const pathname of ["/", "/billing", "/connected-devices", "/subscription/payment/6", "/pricing"]) {
      await expectFitsPhones(page, testInfo, pathname);
    }
    await expectFitsPhones(page, testInfo, "/billing?tab=payment-method", async (tab) => {
      await expect(tab.getByRole("heading", { name: "Add card" })).toBeVisible();
      // With JavaScript the card fields are on the tab itself; without it, on the sandbox's hosted page.
      if (hasJavaScript(testInfo)) await expect(tab.getByLabel("Card number")).toBeVisible();
    });
    if (!hasJavaScript(testInfo)) {
      await page.getByRole("button", { name: "Add card", exact: true }).click();
      await expect(page.getByLabel("Card number")).toBeVisible();
      const measured = await widths(page);
      expect(measured.page, "the hosted page to add a card").toBeLessThanOrEqual(measured.screen);
    }
  });

  test("a long address with no place to break: the receipt, the security page and two-factor fit 320 px (issue 33)", async ({ page, login }, testInfo) => {
    test.slow();
    // 'alexanderjohnson731@example.com' made the receipt 440 px wide: one unbroken word, no hyphen.
    const email = `alexanderjohnson731${randomUUID().replaceAll("-", "").slice(0, 8)}@example.com`;
    await login(await createUser({ exactEmail: email }));
    await buyWithCard(page, testInfo, 5);
    for (const pathname of ["/subscription/payment/5?receipt", "/account/security", "/account/two-factor", "/", "/billing"]) {
      await page.setViewportSize({ width: 320, height: 640 });
      await open(page, pathname, testInfo);
      const measured = await widths(page);
      expect(measured.page, `${pathname} at 320 px is no wider than the screen`).toBeLessThanOrEqual(320);
      expect(await clippedText(page), `${pathname} at 320 px: text cut by its box`).toEqual([]);
      if (pathname === "/account/security") {
        // The activity's rows are cards on a phone, each value with its heading.
        const row = page.getByRole("region", { name: "Recent activity table" }).locator("tbody tr").first();
        await expect(row.locator("td[data-label='Browser and system']")).toBeVisible();
      }
    }
  });

  test("the payment history scrolls in its own box, a focusable named region, never the page", { tag: "@once" }, async ({ page, login }, testInfo) => {
    test.slow();
    await login();
    await buyWithCard(page, testInfo, 1);
    // A desktop, and a tablet width where the table is still a table.
    for (const width of [1280, 700]) {
      await page.setViewportSize({ width, height: 800 });
      await open(page, "/billing", testInfo);
      const region = page.getByRole("region", { name: "Payment history table" });
      await expect(region.getByRole("table")).toBeVisible();
      await expect(region).toHaveAttribute("tabindex", "0");
      const measured = await widths(page);
      expect(measured.page, `/billing at ${width} px`).toBeLessThanOrEqual(measured.screen);
    }
  });
});

test.describe("the phone menu", () => {
  test("is a button named 'Menu' that opens the navigation and closes again", async ({ page, login }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 800 });
    await login();
    await open(page, "/", testInfo);
    const menu = page.getByRole("button", { name: "Menu", exact: true });
    const billing = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Billing" });
    await expect(page.getByRole("checkbox")).toHaveCount(0);
    await expect(billing).toBeHidden();
    await expect(menu).toHaveAttribute("aria-controls", "menu-drawer");
    if (hasJavaScript(testInfo)) await expect(menu).toHaveAttribute("aria-expanded", "false");

    await menu.click();
    await expect(billing).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Help" })).toHaveAttribute("href", "/help");
    if (hasJavaScript(testInfo)) await expect(menu).toHaveAttribute("aria-expanded", "true");
    await page.getByRole("button", { name: "Close navigation" }).click();
    await expect(billing).toBeHidden();
    if (hasJavaScript(testInfo)) await expect(menu).toHaveAttribute("aria-expanded", "false");
  });

  test("by keyboard: Enter opens it, Escape closes it and focus returns to 'Menu'", async ({ page, login }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 800 });
    await login();
    await open(page, "/billing", testInfo);
    const menu = page.getByRole("button", { name: "Menu", exact: true });
    const nav = page.getByRole("navigation", { name: "Main" });
    await menu.focus();
    await page.keyboard.press("Enter");
    await expect(nav.getByRole("link", { name: "Billing" })).toBeVisible();
    await nav.getByRole("link", { name: "Billing" }).focus();
    await page.keyboard.press("Escape");
    await expect(nav.getByRole("link", { name: "Billing" })).toBeHidden();
    await expect(menu).toBeFocused();
    if (hasJavaScript(testInfo)) await expect(menu).toHaveAttribute("aria-expanded", "false");
  });
});

test.describe("public navigation and footer", () => {
  for (const pathname of ["/pricing", "/terms", "/privacy", "/no-such-page"]) {
    test(`${pathname} has the product's navigation and the footer`, { tag: "@once" }, async ({ page }, testInfo) => {
      await open(page, pathname, testInfo);
      const nav = page.getByRole("banner").getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Pricing" })).toHaveAttribute("href", "/pricing");
      await expect(nav.getByRole("link", { name: "Help" })).toHaveAttribute("href", "/help");
      const footer = page.getByRole("contentinfo").getByRole("navigation", { name: "Footer" });
      const links = footer.getByRole("link");
      await expect(links).toHaveText(["Pricing", "Help", "Terms", "Privacy", "Cancel subscription", "Sign in"]);
      for (const [name, href] of [
        ["Pricing", "/pricing"],
        ["Help", "/help"],
        ["Terms", "/terms"],
        ["Privacy", "/privacy"],
        ["Cancel subscription", "/cancel"],
        ["Sign in", "/login"],
      ]) {
        await expect(footer.getByRole("link", { name: name!, exact: true })).toHaveAttribute("href", href!);
      }
    });
  }

  test("/pricing says 'My Account' in its footer to a signed-in customer", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await login();
    await open(page, "/pricing", testInfo);
    const footer = page.getByRole("contentinfo");
    await expect(footer.getByRole("link", { name: "My Account" })).toHaveAttribute("href", "/");
    await expect(footer.getByRole("link", { name: "Sign in" })).toHaveCount(0);
  });

  test("the sign-in and sign-up pages lead to the plans ('See plans')", async ({ page }, testInfo) => {
    test.slow();
    for (const pathname of ["/login", "/login?tab=signup"]) {
      await open(page, pathname, testInfo);
      await expect(page.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
    }
    // A visitor sent from / to /login reaches the plans.
    await open(page, "/", testInfo);
    await page.getByRole("link", { name: "See plans" }).click();
    await expect(page.getByRole("heading", { name: "Buy VPN Plan that fits you" })).toBeVisible();
  });
});

test("the focus ring is #1a8cff (3:1 and more against white, the page and the brand colour)", { tag: "@once" }, async ({ page }, testInfo) => {
  await open(page, "/pricing", testInfo);
  const link = page.getByRole("banner").getByRole("link", { name: "Help" });
  await link.focus();
  await expect(link).toHaveCSS("outline-color", "rgb(26, 140, 255)");
  await expect(link).toHaveCSS("outline-style", "solid");
});
