import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { createUser, DEMO, expectHome, hasJavaScript, open, signIn } from "./support";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
/** 'DD MMMM, Y' as DESIGN §2 means it: "21 November, 2026". */
function longDate(date: Date) {
  return `${String(date.getUTCDate()).padStart(2, "0")} ${MONTHS[date.getUTCMonth()]}, ${date.getUTCFullYear()}`;
}

test.describe("account home", () => {
  test("a free account: status Free, banner, password, connected accounts and downloads", async ({ page }, testInfo) => {
    await signIn(page, testInfo, DEMO);
    await expectHome(page);
    const status = page.getByRole("article", { name: "Subscription" });
    await expect(status.getByText("Free", { exact: true })).toBeVisible();
    await expect(status.getByText(/Days Left/)).toHaveCount(0);

    await expect(page.getByRole("heading", { name: "Exclusive 30-day Money-Back Guarantee" })).toBeVisible();
    await expect(page.getByText("If you are unsatisfied with our service, contact us within 30 days.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Get the product" })).toHaveAttribute("href", "/pricing");

    await expect(page.getByRole("article", { name: "Password" })).toBeVisible();

    const accounts = page.getByRole("article", { name: "Connected accounts" });
    for (const provider of ["Google", "Apple"]) {
      const row = accounts.getByRole("listitem").filter({ hasText: provider });
      await expect(row.getByText("Not Connected")).toBeVisible();
      await expect(row.getByRole("button", { name: `Connect ${provider}` })).toBeVisible();
    }

    const downloads = page.getByRole("article", { name: "Downloads" });
    for (const platform of ["iOS", "Android", "Windows", "macOS"]) {
      await expect(downloads.getByRole("link", { name: platform, exact: true })).toHaveAttribute("href", /^https:\/\//);
    }
    await expect(downloads.getByRole("link", { name: "iOS", exact: true })).toHaveAttribute("href", /apps\.apple\.com/);
    await expect(downloads.getByRole("link", { name: "Android", exact: true })).toHaveAttribute("href", /play\.google\.com/);
    await expect(downloads.getByRole("link", { name: "Windows", exact: true })).toHaveAttribute("href", /VPN-Setup\.exe$/);
  });

  test("a premium account shows days left, activation and expiry dates", async ({ page }, testInfo) => {
    const user = await createUser({ subscriptionDays: { startDaysAgo: 10, days: 30 } });
    const started = new Date(Date.now() - 10 * 86_400_000);
    const expires = new Date(started.getTime() + 30 * 86_400_000);
    await signIn(page, testInfo, user);
    await expectHome(page);
    const status = page.getByRole("article", { name: "Subscription" });
    await expect(status.getByText("Premium", { exact: true })).toBeVisible();
    await expect(status.getByText("20 Days Left")).toBeVisible();
    await expect(status.getByText("Activated on")).toBeVisible();
    await expect(status.getByText(longDate(started))).toBeVisible();
    await expect(status.getByText("Expire date")).toBeVisible();
    await expect(status.getByText(longDate(expires))).toBeVisible();
  });

  test("an expired subscription reads Free", async ({ page }, testInfo) => {
    const user = await createUser({ subscriptionDays: { startDaysAgo: 40, days: 30 } });
    await signIn(page, testInfo, user);
    await expectHome(page);
    await expect(page.getByRole("article", { name: "Subscription" }).getByText("Free", { exact: true })).toBeVisible();
  });

  test("the sign-in page and the account home have no detectable accessibility violations", async ({ page }, testInfo) => {
    // axe runs as injected script, which a JavaScript-disabled page refuses; the HTML it scans is the same.
    test.skip(!hasJavaScript(testInfo), "axe needs JavaScript in the page");
    await open(page, "/login", testInfo);
    const loginScan = await new AxeBuilder({ page }).analyze();
    expect(loginScan.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await signIn(page, testInfo, DEMO);
    await expectHome(page);
    const homeScan = await new AxeBuilder({ page }).analyze();
    expect(homeScan.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });

  test("the identity flows' pages have no detectable accessibility violations", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "axe needs JavaScript in the page");
    for (const path of ["/login?tab=signup", "/get-code", "/forget-password", "/generate-password/some-token", "/login-sso", "/terms"]) {
      await open(page, path, testInfo);
      const scan = await new AxeBuilder({ page }).analyze();
      expect(scan.violations.map((v) => `${path} ${v.id}: ${v.help}`)).toEqual([]);
    }
  });
});
