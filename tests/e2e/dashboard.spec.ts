import { DEMO, expectHome, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
/** 'DD MMMM, Y' as DESIGN §2 means it: "21 November, 2026". */
function longDate(date: Date) {
  return `${String(date.getUTCDate()).padStart(2, "0")} ${MONTHS[date.getUTCMonth()]}, ${date.getUTCFullYear()}`;
}

test.describe("account home", () => {
  test("a free account: status Free, banner, password, connected accounts and downloads", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await login(DEMO);
    await open(page, "/", testInfo);
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

  test("a premium account shows days left, activation and expiry dates", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await login({ subscriptionDays: { startDaysAgo: 10, days: 30 } });
    const started = new Date(Date.now() - 10 * 86_400_000);
    const expires = new Date(started.getTime() + 30 * 86_400_000);
    await open(page, "/", testInfo);
    await expectHome(page);
    const status = page.getByRole("article", { name: "Subscription" });
    await expect(status.getByText("Premium", { exact: true })).toBeVisible();
    await expect(status.getByText("20 Days Left")).toBeVisible();
    await expect(status.getByText("Activated on")).toBeVisible();
    await expect(status.getByText(longDate(started), { exact: true })).toBeVisible();
    await expect(status.getByText("Expire date")).toBeVisible();
    await expect(status.getByText(longDate(expires), { exact: true })).toBeVisible();
  });

  test("an expired subscription reads Free", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await login({ subscriptionDays: { startDaysAgo: 40, days: 30 } });
    await open(page, "/", testInfo);
    await expectHome(page);
    await expect(page.getByRole("article", { name: "Subscription" }).getByText("Free", { exact: true })).toBeVisible();
  });
});
