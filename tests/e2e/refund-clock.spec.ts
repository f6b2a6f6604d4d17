import { expect, test } from "@playwright/test";
import { buyMonthByCard } from "./refund-support";
import { open } from "./support";

// The 30-day money-back guarantee by the product's clock (issue 12, decision 016): 31 days after a
// purchase no refund is offered. The test clock moves the whole server's time, so this runs with the
// other clock specs (the "clock" projects), one test at a time.
test.describe.configure({ mode: "serial" });

test("31 days after a purchase the history offers no refund", async ({ page }, testInfo) => {
  await buyMonthByCard(page, testInfo);
  await open(page, "/billing", testInfo);
  await expect(page.getByRole("link", { name: "Request refund" })).toHaveCount(1);

  await page.goto("/dev/clock");
  await page.getByLabel("Days").fill("31");
  await page.getByRole("button", { name: "Advance" }).click();
  await expect(page).toHaveURL(/\/dev\/clock$/);

  await open(page, "/billing", testInfo);
  await expect(page.getByRole("row").filter({ hasText: "1 Month" }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Request refund" })).toHaveCount(0);
});
