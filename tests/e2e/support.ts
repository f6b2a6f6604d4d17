import { randomUUID } from "node:crypto";
import { expect, type Page, type TestInfo } from "@playwright/test";
import { createDatabase } from "../../api/db";
import { hashPassword } from "../../api/lib/passwords";

// Test fixtures go through the API's own database code, on the e2e server's database file.
const E2E_DATABASE = "data/e2e/portal.sqlite";

export const DEMO = { email: "demo@example.com", password: "demo-password" };

export function hasJavaScript(testInfo: TestInfo): boolean {
  return testInfo.project.use.javaScriptEnabled !== false;
}

/** Opens a page and, when JavaScript runs, waits until React has hydrated it. */
export async function open(page: Page, path: string, testInfo: TestInfo) {
  const response = await page.goto(path);
  if (hasJavaScript(testInfo)) await page.locator("html[data-hydrated]").waitFor();
  return response;
}

export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
}

export async function withDatabase<T>(work: (db: ReturnType<typeof createDatabase>) => Promise<T>): Promise<T> {
  const db = createDatabase(E2E_DATABASE);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** A fresh account, optionally with a subscription running from `startDaysAgo` for `days` days. */
export async function createUser(options: { password?: string; subscriptionDays?: { startDaysAgo: number; days: number } } = {}) {
  const email = uniqueEmail();
  const password = options.password ?? "correct-horse-battery";
  const now = new Date();
  const iso = (d: Date) => d.toISOString();
  await withDatabase(async (db) => {
    const user = await db
      .insertInto("users")
      .values({
        email,
        name: "Test User",
        password_hash: await hashPassword(password),
        email_verified_at: iso(now),
        agreement_at: iso(now),
        newsletter_at: null,
        created_at: iso(now),
        updated_at: iso(now),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (options.subscriptionDays) {
      const start = new Date(now.getTime() - options.subscriptionDays.startDaysAgo * 86_400_000);
      const end = new Date(start.getTime() + options.subscriptionDays.days * 86_400_000);
      await db
        .insertInto("subscriptions")
        .values({
          user_id: user.id,
          plan_id: 5,
          title: "1 Year",
          subscription_by: "stripe",
          subs_status: "subscription_started",
          billing_type: "recurring",
          stripe_sub_id: null,
          sub_start_date: iso(start),
          sub_exp_date: iso(end),
          created_at: iso(now),
          updated_at: iso(now),
        })
        .execute();
    }
  });
  return { email, password };
}

export async function signIn(page: Page, testInfo: TestInfo, user: { email: string; password: string }, path = "/login") {
  await open(page, path, testInfo);
  await submitSignIn(page, user);
}

/** Fills and sends the sign-in form of the page that is open. */
export async function submitSignIn(page: Page, user: { email: string; password: string }) {
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
}

export async function expectHome(page: Page) {
  await expect(page.getByRole("heading", { name: "Welcome to the product!" })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/");
}
