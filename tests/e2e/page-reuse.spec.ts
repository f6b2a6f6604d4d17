import { expect, test } from "@playwright/test";
import { hasJavaScript, open } from "../support/e2e";

// The page a worker reuses keeps its HTTP cache between tests, and the patched reset clears the storage of the
// origins it visited over CDP instead of loading each one (docs/decisions/071): what one test leaves in web
// storage, the next in the same worker does not find.
test.describe.configure({ mode: "serial" });

test.describe("a reused page's reset", () => {
  test("a test leaves local storage, session storage and an IndexedDB database behind", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "the reset is the same in both projects");
    await open(page, "/login", testInfo);
    await page.evaluate(async () => {
      localStorage.setItem("left-by", "the previous test");
      sessionStorage.setItem("left-by", "the previous test");
      await new Promise((resolve, reject) => {
        const request = indexedDB.open("left-behind", 1);
        request.onupgradeneeded = () => request.result.createObjectStore("things");
        request.onsuccess = () => resolve(request.result.close());
        request.onerror = () => reject(request.error);
      });
    });
    expect(await page.evaluate(async () => [localStorage.length, sessionStorage.length, (await indexedDB.databases()).length])).toEqual([1, 1, 1]);
  });

  test("the next test in the same worker finds none of it", async ({ page }, testInfo) => {
    test.skip(!hasJavaScript(testInfo), "the reset is the same in both projects");
    await open(page, "/login", testInfo);
    expect(await page.evaluate(async () => [localStorage.length, sessionStorage.length, (await indexedDB.databases()).length])).toEqual([0, 0, 0]);
  });
});
