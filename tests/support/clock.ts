import type { Page } from "@playwright/test";
import type { MovableClock } from "../../api/platform/clock";

// The business clock, moved by tests: in the process (an API started by tests/api/harness.ts) or, for a
// running server in sandbox mode, through its /dev/clock page.

const DAY_MS = 86_400_000;

/** A business clock that tests move forward, and back to the present. */
export class TestClock implements MovableClock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advanceDays(days: number): void {
    this.offsetMs += days * DAY_MS;
  }
  advanceSeconds(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}

/** Moves a sandbox server's business time by `days`, as a tester does: the /dev/clock page's form. */
export async function advanceServerClock(page: Page, days: number) {
  await page.goto("/dev/clock");
  await page.getByLabel("Days").fill(String(days));
  // Done when the form's POST is answered and the page it leads to has loaded (no Playwright `expect`
  // here: the API tests load this file under Vitest).
  await Promise.all([
    page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/dev/clock"),
    page.getByRole("button", { name: "Advance" }).click(),
  ]);
  await page.waitForURL(/\/dev\/clock$/);
}
