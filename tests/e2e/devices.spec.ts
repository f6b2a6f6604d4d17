import type { Browser, Page, TestInfo } from "@playwright/test";
import { expectKeyboardModal } from "../support/dialogs";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, signInThroughForm, test } from "../support/fixtures";

// Connected devices (commerce §2, §4, §8): two browsers signed in to one fresh account; one ends the
// other's session through the server-rendered confirm step, then Clear All signs everyone out. Each
// device is named by the API from its User-Agent (issue 33), and 'Sign out other devices' keeps this one.
// The empty state ('No Connected Devices found!') cannot be reached from a signed-in browser (its
// own device is always listed); the API suite checks that no device is listed once no token is live.

const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

async function secondBrowser(browser: Browser, testInfo: TestInfo, userAgent?: string): Promise<Page> {
  const context = await browser.newContext({
    baseURL: testInfo.project.use.baseURL,
    javaScriptEnabled: hasJavaScript(testInfo),
    // Another zone than the server's UTC, so the local conversion shows.
    timezoneId: "Asia/Kolkata",
    ...(userAgent ? { userAgent } : {}),
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

test("each device is named by its browser and system, and 'Sign out other devices' signs out the other browser only", async ({ page, browser, login }, testInfo) => {
  const user = await login();
  // Firefox 133 on Windows: a browser whose User-Agent names its system (no client hints from Firefox).
  const other = await secondBrowser(browser, testInfo, FIREFOX_WINDOWS);
  try {
    await signInThroughForm(other.request, testInfo.project.use.baseURL!, user);
    await open(other, "/", testInfo);
    await expect(other).toHaveURL(/\/$/);

    const response = await open(page, "/connected-devices", testInfo);
    // The portal asks for the client hints that tell Windows 11 (and the real macOS and Android versions).
    expect(response?.headers()["accept-ch"]).toBe("Sec-CH-UA-Platform-Version, Sec-CH-UA-Full-Version-List");
    await expect(deviceCards(page)).toHaveCount(2);
    const theirs = deviceCards(page).filter({ hasNotText: "This device" });
    await expect(theirs.getByRole("heading", { level: 2 })).toHaveText("Firefox 133 on Windows 10");
    await expect(theirs.getByRole("img")).toHaveAccessibleName("Windows");
    await expect(theirs).toContainText("Web browser");
    // This browser (Playwright's Chrome): its browser and major version, on the system its User-Agent names.
    await expect(deviceCards(page).filter({ hasText: "This device" }).getByRole("heading", { level: 2 })).toHaveText(/^Chrome \d+ on \S+/);

    // The confirm step is a state of the page; Cancel goes back without signing anyone out.
    await page.getByRole("button", { name: "Sign out other devices" }).click();
    await expect(page).toHaveURL(/\?confirm=others$/);
    const dialog = page.getByRole("dialog", { name: "Sign out other devices?" });
    await expect(dialog).toContainText("The other device will be signed out at once. You stay signed in here.");
    await dialog.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(deviceCards(page)).toHaveCount(2);

    await page.getByRole("button", { name: "Sign out other devices" }).click();
    await page.getByRole("dialog", { name: "Sign out other devices?" }).getByRole("button", { name: "Sign out other devices" }).click();
    await expect(page).toHaveURL(/\/connected-devices$/);
    await expect(page.getByText("Other devices signed out")).toBeVisible();
    await expect(deviceCards(page)).toHaveCount(1);
    await expect(deviceCards(page).filter({ hasText: "This device" })).toHaveCount(1);
    // No other device left: only Clear All.
    await expect(page.getByRole("button", { name: "Sign out other devices" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Clear All" })).toBeVisible();

    // The other browser is signed out on its next page load; this one still sees its devices.
    await other.goto("/connected-devices");
    await expect(other).toHaveURL(/\/login(\?|$)/);
    await page.goto("/connected-devices");
    await expect(page).toHaveURL(/\/connected-devices$/);

    // What the database holds: one live token left, and the security log says what happened.
    const { live, kinds } = await withDatabase(async (db) => {
      const owner = await db.selectFrom("users").select("id").where("email", "=", user.email).executeTakeFirstOrThrow();
      const tokens = await db.selectFrom("tokens").select("id").where("user_id", "=", owner.id).where("revoked_at", "is", null).execute();
      const events = await db.selectFrom("security_events").select("kind").where("user_id", "=", owner.id).execute();
      return { live: tokens.length, kinds: events.map((e) => e.kind) };
    });
    expect(live).toBe(1);
    expect(kinds).toContain("signed_out_other_devices");
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
