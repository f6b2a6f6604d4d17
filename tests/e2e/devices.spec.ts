import type { Browser, Page, TestInfo } from "@playwright/test";
import { expectKeyboardModal } from "../support/dialogs";
import { hasJavaScript, open } from "../support/e2e";
import { expect, signInThroughForm, test } from "../support/fixtures";

// Connected devices (commerce §2, §4, §8): two browsers signed in to one fresh account; one ends the
// other's session through the server-rendered confirm step, then Clear All signs everyone out.
// The empty state ('No Connected Devices found!') cannot be reached from a signed-in browser (its
// own device is always listed); the API suite checks that no device is listed once no token is live.

async function secondBrowser(browser: Browser, testInfo: TestInfo): Promise<Page> {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: hasJavaScript(testInfo),
    // Another zone than the server's UTC, so the local conversion shows.
    timezoneId: "Asia/Kolkata",
  });
  return context.newPage();
}

const deviceCards = (page: Page) => page.getByRole("list", { name: "Connected devices" }).getByRole("listitem");

test("lists both devices, terminates the other one after confirming, and Clear All signs out", async ({ page, browser, login }, testInfo) => {
  const user = await login();
  const other = await secondBrowser(browser, testInfo);
  try {
    await open(page, "/", testInfo);
    await expect(page).toHaveURL(/\/$/);
    await signInThroughForm(other.request, testInfo.project.use.baseURL!, user);
    await open(other, "/", testInfo);
    await expect(other).toHaveURL(/\/$/);
    await open(other, "/connected-devices", testInfo);
    const otherTime = deviceCards(other).filter({ hasText: "This device" }).locator("time").first();
    // Server HTML: UTC with the zone named; with JavaScript: the browser's zone (UTC+05:30 here).
    await expect(otherTime).toHaveText(
      hasJavaScript(testInfo) ? /^\d{4}-\d\d-\d\d \d\d:\d\d (GMT\+5:30|IST)$/ : /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );

    const response = await open(page, "/connected-devices", testInfo);
    expect(response?.headers()["cache-control"]).toBe("private, no-store");
    await expect(page.getByRole("heading", { name: "Stay Safe, Stay Connected" })).toBeVisible();
    await expect(deviceCards(page)).toHaveCount(2);
    const mine = deviceCards(page).filter({ hasText: "This device" });
    await expect(mine).toHaveCount(1);
    await expect(mine.getByRole("img")).toHaveAccessibleName(/Windows|Apple|Linux|Android|Desktop|Web browser/);
    const time = mine.locator("time").first();
    if (hasJavaScript(testInfo)) {
      // After hydration: the browser's local time, same format, with its zone named.
      await expect(time).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d \S+$/);
    } else {
      await expect(time).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    }
    await expect(mine).toContainText("Last login");

    // Terminate opens a confirm step; Cancel goes back without terminating.
    const theirs = deviceCards(page).filter({ hasNotText: "This device" });
    await theirs.getByRole("button", { name: /^Terminate/ }).click();
    await expect(page).toHaveURL(/\?confirm=device-\d+$/);
    const dialog = page.getByRole("dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(deviceCards(page)).toHaveCount(2);

    // Confirm this time.
    await deviceCards(page).filter({ hasNotText: "This device" }).getByRole("button", { name: /^Terminate/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Terminate" }).click();
    await expect(page.getByText("Device terminated successfully")).toBeVisible();
    await expect(page).toHaveURL(/\/connected-devices$/);
    await expect(deviceCards(page)).toHaveCount(1);
    await expect(deviceCards(page).filter({ hasText: "This device" })).toHaveCount(1);

    // The terminated browser is signed out on its next page load.
    await other.goto("/connected-devices");
    await expect(other).toHaveURL(/\/login(\?|$)/);

    // Clear All: confirm, then every device (this one too) is signed out, at /login with the toast.
    await page.getByRole("button", { name: "Clear All" }).click();
    await expect(page).toHaveURL(/\?confirm=all$/);
    await page.getByRole("dialog").getByRole("button", { name: "Clear All" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("All devices terminated successfully")).toBeVisible();
    await page.goto("/connected-devices");
    await expect(page).toHaveURL(/\/login\?oldurl=/);
  } finally {
    await other.context().close();
  }
});

test("terminating this browser's own device signs it out", async ({ page, login }, testInfo) => {
  await login();
  await open(page, "/", testInfo);
  await expect(page).toHaveURL(/\/$/);
  await open(page, "/connected-devices", testInfo);
  await deviceCards(page).filter({ hasText: "This device" }).getByRole("button", { name: /^Terminate/ }).click();
  await expect(page.getByRole("dialog")).toContainText("signs you out");
  await page.getByRole("dialog").getByRole("button", { name: "Terminate" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText("Device terminated successfully")).toBeVisible();
});

test("with JavaScript Terminate and Clear All confirm in modals: focus stays in them, Escape cancels and focus returns", async ({ page, login }, testInfo) => {
  test.skip(!hasJavaScript(testInfo), "a modal needs JavaScript; without it the dialog is a page state");
  await login();
  await open(page, "/connected-devices", testInfo);
  const terminate = deviceCards(page).filter({ hasText: "This device" }).getByRole("button", { name: /^Terminate/ });
  await terminate.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\?confirm=device-\d+$/);
  await expectKeyboardModal(page, page.getByRole("dialog", { name: "Terminate this device?" }), { opener: terminate });
  await expect(page).toHaveURL(/\/connected-devices$/);

  const clearAll = page.getByRole("button", { name: "Clear All" });
  await clearAll.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\?confirm=all$/);
  await expectKeyboardModal(page, page.getByRole("dialog", { name: "Terminate all devices?" }), { opener: clearAll });
  await expect(page).toHaveURL(/\/connected-devices$/);
  // Nothing was terminated: still signed in, the device still listed.
  await expect(deviceCards(page)).toHaveCount(1);
});
