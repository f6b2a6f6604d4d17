import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { createDatabase } from "../../api/platform/db";
import { createSetPasswordToken } from "../../api/identity/one-time-tokens";
import { createUserWithoutPassword } from "../../api/identity/users";
import { DEFAULT_PASSWORD, insertSubscription, insertUser } from "./accounts";
import { e2eDataDir } from "./e2e-servers";
import { uniqueEmail } from "./emails";

// What the browser tests (tests/e2e, and scripts/page-check.ts) share. Accounts are made through the API's
// own database code, on the database of the e2e server the running test talks to: its SQLite file (one per
// port: see playwright.config.ts), or the database E2E_DATABASE_URL names (the PostgreSQL lane's,
// page-check's), read when it is used.
const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
/** The e2e server's stdout: JSON log lines (playwright.config.ts). */
export const E2E_SERVER_LOG = `${e2eDataDir(E2E_PORT)}/server.log`;

function e2eDatabase(): string {
  if (process.env.E2E_DATABASE_URL) return process.env.E2E_DATABASE_URL;
  return `${e2eDataDir(currentServerPort())}/portal.sqlite`;
}

/** The port of the server the running test's project talks to (the clock projects have their own). */
function currentServerPort(): number {
  let baseURL: string | undefined;
  try {
    baseURL = test.info().project.use.baseURL;
  } catch {
    // Outside a test (a script): the main e2e server.
  }
  return baseURL ? Number(new URL(baseURL).port) : E2E_PORT;
}

export const DEMO = { email: "demo@example.com", password: "demo-password" };

/**
 * Every password the specs type or send (8 characters and more), so the log scan (logs.spec.ts) can
 * check that none reached the server's log; logs.spec.ts also checks that this list covers the specs.
 */
export const TEST_PASSWORDS = [
  DEMO.password,
  "wrong-password-123",
  "faults-password-123",
  "a-brand-new-password",
  "still-guessing",
  DEFAULT_PASSWORD,
  "a-good-password",
  "a-strong-password",
  "another-password",
  "brand-new-password",
  "brand-new-passwork",
  "changed-password-1",
  "first-password-1",
  "grace-password-1",
  "second-password-2",
  "via-email-link-1",
  "whatever-password",
  "wrong-password",
];

export function hasJavaScript(testInfo: TestInfo): boolean {
  return testInfo.project.use.javaScriptEnabled !== false;
}

/** Opens a page and, when JavaScript runs, waits until React has hydrated it. */
export async function open(page: Page, path: string, testInfo: TestInfo) {
  const response = await page.goto(path);
  if (hasJavaScript(testInfo)) await page.locator("html[data-hydrated]").waitFor();
  return response;
}

/**
 * Empties the browser's HTTP and memory caches, as for a first visit. The page a worker reuses keeps its cache
 * from test to test (docs/decisions/071), where a script already fetched is taken from memory without a request
 * Playwright sees: a test that watches which scripts a page downloads starts with this.
 */
export async function emptyBrowserCache(page: Page) {
  const session = await page.context().newCDPSession(page);
  try {
    await session.send("Network.clearBrowserCache");
  } finally {
    await session.detach();
  }
}

/** Runs `work` on the e2e server's database, or on another server's (`database`, a path). */
export async function withDatabase<T>(work: (db: ReturnType<typeof createDatabase>) => Promise<T>, database = e2eDatabase()): Promise<T> {
  const db = createDatabase(database, process.env.PGUSER || process.env.USER);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/**
 * A fresh account, optionally with a subscription running from `startDaysAgo` for `days` days, in the
 * e2e server's database or in another server's (`database`, a path).
 */
export async function createUser(
  options: { password?: string; subscriptionDays?: { startDaysAgo: number; days: number }; database?: string; emailPrefix?: string; exactEmail?: string } = {},
) {
  const email = options.exactEmail ?? uniqueEmail(options.emailPrefix);
  const password = options.password ?? DEFAULT_PASSWORD;
  await withDatabase(async (db) => {
    const userId = await insertUser(db, { email, password, name: "Test User", agreed: true });
    const running = options.subscriptionDays;
    if (running) {
      const start = new Date(Date.now() - running.startDaysAgo * 86_400_000);
      await insertSubscription(db, userId, { subs_status: "subscription_started", sub_start_date: start.toISOString(), days: running.days });
    }
  }, options.database);
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

/** An account without a password (as Google/Apple sign-in creates), and a "set your password" token for it. */
export async function createPasswordlessUser() {
  const email = uniqueEmail("nopass");
  return withDatabase(async (db) => {
    const userId = await createUserWithoutPassword(db, { email, name: "No Password" });
    const token = await createSetPasswordToken(db, userId);
    return { email, token };
  });
}

type Mail = { to: string; subject: string; text: string; sentAt: string };

/** The newest email to `email` whose subject matches, from the mail sandbox (DESIGN §2). */
export async function latestMail(request: APIRequestContext, email: string, subject: RegExp, after?: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        const response = await request.get(`/dev/mailbox.json?to=${encodeURIComponent(email)}`);
        const mails = (await response.json()) as Mail[];
        found = mails.find((mail) => subject.test(mail.subject) && (!after || mail.sentAt > after));
        return Boolean(found);
      },
      { message: `an email to ${email} with subject ${subject}`, timeout: 5_000 },
    )
    .toBe(true);
  return found!;
}

/** The code in the newest matching email: the only run of six digits in its text. */
export async function latestCode(request: APIRequestContext, email: string, subject = /code/i, after?: string): Promise<string> {
  const mail = await latestMail(request, email, subject, after);
  const codes = mail.text.match(/\b\d{6}\b/g) ?? [];
  expect(codes).toHaveLength(1);
  return codes[0]!;
}

/** Types a code into the code field, whichever form it has (one input, or six boxes with JavaScript). */
export async function enterCode(page: Page, code: string) {
  // With JavaScript the six boxes replace the single input shortly after hydration: type into them
  // once they are there, rather than into an input about to be swapped out.
  if ((await page.locator("html[data-hydrated]").count()) > 0) await page.getByLabel("Digit 6").waitFor();
  await page.getByLabel("Verification code").fill(code);
}

/** Logs out from the menu and waits until the sign-in page is back. */
export async function logOut(page: Page) {
  await page.getByRole("button", { name: "Log Out" }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** Fills the sandbox's card fields (a far expiry: the clock specs move the business time by years) and presses Pay. */
export async function fillSandboxCardAndPay(page: Page, card: string) {
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiry (MM / YY)").fill("12 / 49");
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").fill("Pat Payer");
  await page.getByLabel("Postal code").fill("10115");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
}
