import { expect, test, type Page } from "@playwright/test";
import { createUser, DEMO, expectHome, hasJavaScript, open, signIn } from "../support/e2e";

const NARROW = { width: 390, height: 844 };

const planCards = (page: Page) => page.getByRole("region", { name: /^(Yearly|Monthly) plans$/ }).getByRole("article");
const card = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true });
const periodTab = (page: Page, name: "Yearly" | "Monthly") =>
  page.getByRole("navigation", { name: "Billing period" }).getByRole("link", { name, exact: true });

function pathOf(page: Page) {
  const url = new URL(page.url());
  return url.pathname;
}

test.describe("pricing page", () => {
  test("shows the yearly plans by default, 2 Years most popular, 5 Years one-time", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/pricing", testInfo);
    await expect(page).toHaveTitle("Pricing | VPN Account");
    await expect(page.getByRole("heading", { level: 1, name: "Buy VPN Plan that fits you" })).toBeVisible();
    await expect(page.getByText(/credit card, PayPal.*crypto/)).toBeVisible();
    await expect(periodTab(page, "Yearly")).toHaveAttribute("aria-current", "page");
    await expect(periodTab(page, "Monthly")).not.toHaveAttribute("aria-current", /.*/);

    await expect(planCards(page).getByRole("heading", { level: 3 })).toHaveText(["1 Year", "2 Years", "5 Years"]);
    const twoYears = card(page, "2 Years");
    await expect(twoYears.getByText("Most popular")).toBeVisible();
    await expect(twoYears.getByText("Save 63%")).toBeVisible();
    await expect(twoYears.getByText("$4.49")).toBeVisible();
    await expect(twoYears.locator("s", { hasText: "$11.99" })).toBeVisible();
    await expect(twoYears.getByText("+3 Months")).toBeVisible();
    await expect(twoYears.getByText(/\$287\.76\s+\$107\.76 for 2 Years/)).toBeVisible();
    await expect(twoYears.getByText("30-Day Money-Back Guarantee")).toBeVisible();
    await expect(card(page, "1 Year").getByText("Most popular")).toHaveCount(0);
    await expect(card(page, "5 Years").getByText("No Extra Months")).toBeVisible();
    await expect(card(page, "5 Years").getByText(/one-time payment.*does not renew/i)).toBeVisible();
    for (const title of ["1 Year", "2 Years", "5 Years"]) {
      await expect(card(page, title).getByRole("link", { name: "Select Plan" })).toBeVisible();
    }
  });

  test("Monthly shows 1, 3 and 6 months; Yearly brings the yearly plans back", async ({ page }, testInfo) => {
    await open(page, "/pricing", testInfo);
    await periodTab(page, "Monthly").click();
    await expect(planCards(page).getByRole("heading", { level: 3 })).toHaveText(["1 Month", "3 Months", "6 Months"]);
    expect(new URL(page.url()).searchParams.get("tab")).toBe("monthly");
    await expect(periodTab(page, "Monthly")).toHaveAttribute("aria-current", "page");
    await expect(card(page, "1 Month").getByText("No Extra Months")).toBeVisible();
    await expect(planCards(page).getByText("Most popular")).toHaveCount(0);
    await periodTab(page, "Yearly").click();
    await expect(planCards(page).getByRole("heading", { level: 3 })).toHaveText(["1 Year", "2 Years", "5 Years"]);
  });

  test("an unknown tab falls back to Yearly", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/pricing?tab=weekly", testInfo);
    await expect(periodTab(page, "Yearly")).toHaveAttribute("aria-current", "page");
    await expect(planCards(page).getByRole("heading", { level: 3 })).toHaveText(["1 Year", "2 Years", "5 Years"]);
  });

  test("compare plans: the active tab's table, its rows, and the small print", async ({ page }, testInfo) => {
    await open(page, "/pricing", testInfo);
    await expect(page.getByRole("heading", { level: 2, name: "Compare plans" })).toBeVisible();
    const yearly = page.getByRole("table", { name: "Yearly plans compared" });
    await expect(yearly).toBeVisible();
    await expect(page.getByRole("table", { name: "Monthly plans compared" })).toBeHidden();
    await expect(yearly.getByRole("columnheader")).toHaveText(["Plan", "1 Year", "2 Years Most popular", "5 Years"]);
    const rows = [
      ["Money-back Guarantee", "30-day", "30-day", "30-day"],
      ["Extra Months", "+2 Months", "+3 Months", "No Extra Months"],
      ["Saving", "+50%", "+63%", "+72%"],
      ["Total Discount", "50%", "63%", "72%"],
      ...[
        "High-Speed Worldwide Servers",
        "Industry-Leading Protection",
        "Unlimited Device Protection",
        "Complete Online Privacy",
        "Customer Support",
      ].map((feature) => [feature, "✓Included", "✓Included", "✓Included"]),
    ];
    for (const [name, ...cells] of rows) {
      const row = yearly.getByRole("row", { name: new RegExp(`^${name}`) });
      await expect(row.getByRole("rowheader")).toHaveText(name!);
      await expect(row.getByRole("cell")).toHaveText(cells);
    }
    await expect(page.getByText(/at least 24 hours before the end of the billing cycle/)).toBeVisible();
    await expect(page.getByText(/5-year one-time plan that does not renew/)).toBeVisible();
    await expect(page.getByText(/crypto renewal invoice 3 days before/)).toBeVisible();
    await expect(page.getByText(/1 to 3 hours to confirm/)).toBeVisible();
    // 'Back to plans' is for small screens only.
    await expect(page.getByRole("link", { name: "Back to plans" })).toBeHidden();

    await periodTab(page, "Monthly").click();
    const monthly = page.getByRole("table", { name: "Monthly plans compared" });
    await expect(monthly).toBeVisible();
    await expect(page.getByRole("table", { name: "Yearly plans compared" })).toBeHidden();
    await expect(monthly.getByRole("columnheader")).toHaveText(["Plan", "1 Month", "3 Months", "6 Months"]);
    await expect(monthly.getByText("Most popular")).toHaveCount(0);
    await expect(monthly.getByRole("row", { name: /^Total Discount/ }).getByRole("cell")).toHaveText(["17%", "25%", "33%"]);
  });

  test("a card's buy button goes to the plan's checkout", async ({ page }, testInfo) => {
    await open(page, "/pricing", testInfo);
    const buy = card(page, "2 Years").getByRole("link", { name: "Select Plan" });
    await expect(buy).toHaveAttribute("href", "/subscription/payment/6");
    await buy.click();
    await expect.poll(() => pathOf(page)).toBe("/subscription/payment/6");
  });

  test.describe("on a small screen", () => {
    test.use({ viewport: NARROW });

    test("choosing 2 Years and the bottom button goes to checkout", async ({ page }, testInfo) => {
      await open(page, "/pricing", testInfo);
      const bottom = page.getByRole("button", { name: "Select a Plan" });
      await expect(bottom).toBeVisible();
      await page.getByRole("radio", { name: "2 Years" }).check();
      await expect(page.getByRole("radio", { name: "2 Years" })).toBeChecked();
      // With JavaScript the button follows the choice; without it, the server cannot know it yet.
      const buy = hasJavaScript(testInfo)
        ? page.getByRole("button", { name: "Buy for 2 Years" })
        : page.getByRole("button", { name: "Select a Plan" });
      await expect(buy).toBeVisible();
      await buy.click();
      await expect.poll(() => pathOf(page)).toBe("/subscription/payment/6");
    });

    test("the bottom button with nothing chosen asks for a plan", async ({ page }, testInfo) => {
      await open(page, "/pricing?tab=monthly", testInfo);
      await page.getByRole("button", { name: "Select a Plan" }).click();
      await expect(page.getByRole("alert").filter({ hasText: "Please select a plan." })).toBeVisible();
      expect(pathOf(page)).toBe("/pricing");
      // Still the tab the visitor was on.
      await expect(planCards(page).getByRole("heading", { level: 3 })).toHaveText(["1 Month", "3 Months", "6 Months"]);
      await page.getByRole("radio", { name: "3 Months" }).check();
      const buy = page.getByRole("button", { name: hasJavaScript(testInfo) ? "Buy for 3 Months" : "Select a Plan" });
      await buy.click();
      await expect.poll(() => pathOf(page)).toBe("/subscription/payment/2");
    });

    test("each compare table has 'Back to plans'", { tag: "@once" }, async ({ page }, testInfo) => {
      await open(page, "/pricing", testInfo);
      const back = page.getByRole("link", { name: "Back to plans" });
      await expect(back).toHaveCount(1);
      await expect(back).toHaveAttribute("href", "#plans");
      await expect(back).toBeVisible();
    });
  });

  test("on a wide screen there are no radios and no bottom bar", { tag: "@once" }, async ({ page }, testInfo) => {
    await open(page, "/pricing", testInfo);
    await expect(page.getByRole("radio")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Select a Plan" })).toBeHidden();
  });

  test("an anonymous visitor sees 'Log in' with the page as oldurl", async ({ page }, testInfo) => {
    await open(page, "/pricing", testInfo);
    await expect(page.getByText("Already have an account?")).toBeVisible();
    await expect(page.getByRole("link", { name: "Log in" })).toHaveAttribute("href", "/login?oldurl=%2Fpricing");
    await expect(page.getByRole("link", { name: "My Account" })).toHaveCount(0);
    await periodTab(page, "Monthly").click();
    await expect(page.getByRole("link", { name: "Log in" })).toHaveAttribute("href", "/login?oldurl=%2Fpricing%3Ftab%3Dmonthly");
    await page.getByRole("link", { name: "Log in" }).click();
    await expect.poll(() => pathOf(page)).toBe("/login");
    expect(new URL(page.url()).searchParams.get("oldurl")).toBe("/pricing?tab=monthly");
  });

  test("a signed-in user sees 'My Account' and no 'Log in'", async ({ page }, testInfo) => {
    await signIn(page, testInfo, DEMO);
    await expectHome(page);
    await open(page, "/pricing", testInfo);
    // The header's (the footer says 'My Account' too).
    const myAccount = page.getByRole("banner").getByRole("link", { name: "My Account" });
    await expect(myAccount).toHaveAttribute("href", "/");
    await expect(page.getByRole("link", { name: "Log in" })).toHaveCount(0);
    await expect(page.getByText("Already have an account?")).toHaveCount(0);
    await myAccount.click();
    await expectHome(page);
  });

  test("the user's current plan reads 'Current Plan', disabled", { tag: "@once" }, async ({ page }, testInfo) => {
    // createUser's subscription is on plan 5 (1 Year).
    const user = await createUser({ subscriptionDays: { startDaysAgo: 1, days: 365 } });
    await signIn(page, testInfo, user);
    await expectHome(page);
    await open(page, "/pricing", testInfo);
    const current = card(page, "1 Year").getByRole("button", { name: "Current Plan" });
    await expect(current).toBeDisabled();
    await expect(card(page, "1 Year").getByRole("link", { name: "Select Plan" })).toHaveCount(0);
    // Another recurring plan is a change of plan (decision 028); the one-time plan is still bought.
    await expect(card(page, "2 Years").getByRole("link", { name: "Change to this plan" })).toBeVisible();
    await expect(card(page, "5 Years").getByRole("link", { name: "Select Plan" })).toBeVisible();
  });

  test("anonymous answers are shared-cacheable, signed-in ones private; both vary on Cookie", { tag: "@once" }, async ({ page, request }, testInfo) => {
    const anonymous = await request.get("/pricing");
    expect(anonymous.status()).toBe(200);
    expect(anonymous.headers()["cache-control"]).toMatch(/^public, .*s-maxage=\d+/);
    expect(anonymous.headers().vary).toMatch(/\bCookie\b/i);
    expect(anonymous.headers()["set-cookie"]).toBeUndefined();
    const monthly = await request.get("/pricing?tab=monthly");
    expect(monthly.headers()["cache-control"]).toMatch(/^public/);

    await signIn(page, testInfo, DEMO);
    await expectHome(page);
    const signedIn = await page.request.get("/pricing");
    expect(signedIn.status()).toBe(200);
    expect(signedIn.headers()["cache-control"]).toBe("private, no-store");
    expect(signedIn.headers().vary).toMatch(/\bCookie\b/i);
    expect(await signedIn.text()).toContain("My Account");
  });

  test("the no-JavaScript chooser answers with a redirect to checkout", { tag: "@once" }, async ({ request }) => {
    const response = await request.get("/pricing?tab=yearly&plan=6&buy=1", { maxRedirects: 0 });
    expect(response.status()).toBe(302);
    expect(response.headers().location).toBe("/subscription/payment/6");
  });
});
