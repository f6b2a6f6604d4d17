import { type PasswordHasher, productPasswords } from "../../api/identity/passwords";
import type { Database } from "../../api/platform/db";
import type { NewSubscription } from "../../api/platform/db/schema";

// Accounts for tests, made one of two ways: straight into a database (fast; what most tests need), or over
// HTTP the way a client makes one (the quality scripts); and a portal session for one, over HTTP.

/** The password of accounts made by createUser() (tests/support/e2e.ts) and the signed-in fixture. */
export const DEFAULT_PASSWORD = "correct-horse-battery";

const DAY_MS = 86_400_000;

export type NewTestUser = {
  email: string;
  /** Null or left out: an account without a password (as Google/Apple sign-in makes one). */
  password?: string | null;
  name?: string | null;
  /** Whether the terms were agreed to at sign-up (the portal's sign-up records it). */
  agreed?: boolean;
  /** The business time of creation (a test clock's); now by default. */
  now?: Date;
  /** The account's language (users.language); English by default. */
  language?: "en" | "de" | "fr" | "es";
};

// argon2 is slow by design: one hash per password and hasher per process serves every account made with it
// (the salt is shared, which no test looks at; sign-ins still verify at the hash's cost).
const hashes = new WeakMap<PasswordHasher, Map<string, Promise<string>>>();
function hashOnce(passwords: PasswordHasher, password: string): Promise<string> {
  let byPassword = hashes.get(passwords);
  if (!byPassword) hashes.set(passwords, (byPassword = new Map()));
  let hash = byPassword.get(password);
  if (!hash) byPassword.set(password, (hash = passwords.hash(password)));
  return hash;
}

/**
 * Inserts a verified account and answers its id. Its password is hashed by `passwords`: give the hasher of
 * the API that will check it (the API's tests run a cheaper one, tests/api/harness.ts), or the API re-hashes
 * it at the first sign-in; the product's by default (the browser tests' servers).
 */
export async function insertUser(db: Database, user: NewTestUser, passwords: PasswordHasher = productPasswords): Promise<number> {
  const now = (user.now ?? new Date()).toISOString();
  const row = await db
    .insertInto("users")
    .values({
      email: user.email.toLowerCase(),
      name: user.name ?? null,
      password_hash: user.password ? await hashOnce(passwords, user.password) : null,
      email_verified_at: now,
      ...(user.agreed ? { agreement_at: now, newsletter_at: null } : {}),
      ...(user.language ? { language: user.language } : {}),
      created_at: now,
      updated_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export type NewTestSubscription = Partial<Omit<NewSubscription, "user_id">> & {
  /** The business time of the insert (a test clock's); now by default. */
  now?: Date;
  /** How long it runs from its start, when sub_exp_date is not given. */
  days?: number;
};

/**
 * Inserts a subscription for `userId` and answers its id: by default the 1-year plan paid by card, started
 * now, running 365 days, no Stripe subscription; any column can be given.
 */
export async function insertSubscription(db: Database, userId: number, subscription: NewTestSubscription = {}): Promise<number> {
  const { now: at, days = 365, ...columns } = subscription;
  const now = (at ?? new Date()).toISOString();
  const start = columns.sub_start_date ?? now;
  const row = await db
    .insertInto("subscriptions")
    .values({
      user_id: userId,
      plan_id: 5,
      title: "1 Year",
      subscription_by: "stripe",
      subs_status: "active",
      billing_type: "recurring",
      stripe_sub_id: null,
      sub_start_date: start,
      sub_exp_date: new Date(new Date(start).getTime() + days * DAY_MS).toISOString(),
      created_at: now,
      updated_at: now,
      ...columns,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export type Account = { email: string; password: string; token: string };

/** Signs an account up through the API as a client does: temp-signup, the code from the mail sandbox, register-user. */
export async function signUpThroughApi(base: string, email: string, password: string): Promise<Account> {
  const post = (pathname: string, body: Record<string, unknown>) =>
    fetch(`${base}${pathname}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const sent = await post("/api/user/temp-signup", { email });
  if (!sent.ok) throw new Error(`temp-signup for ${email} answered ${sent.status}: ${await sent.text()}`);
  const mails = (await (await fetch(`${base}/dev/mailbox.json?to=${encodeURIComponent(email)}`)).json()) as Array<{ text: string }>;
  const code = /\b\d{6}\b/.exec(mails[0]?.text ?? "")?.[0];
  if (!code) throw new Error(`No sign-up code was mailed to ${email}`);
  const registered = await post("/api/user/register-user", {
    email,
    agreement: 1,
    verification_code: code,
    password,
    password_confirmation: password,
  });
  const json = (await registered.json()) as { data?: { token?: string } };
  if (!registered.ok || !json.data?.token) throw new Error(`register-user for ${email} answered ${registered.status}`);
  return { email, password, token: json.data.token };
}

/** What the portal's sign-in form is sent (no JavaScript): the fixture and the scripts sign in with it. */
export const signInForm = (user: { email: string; password: string }) => ({ intent: "signin", email: user.email, password: user.password });

/** Signs in through the portal's sign-in form (no JavaScript) and answers the session cookie (`name=value; ...`). */
export async function portalSignIn(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams(signInForm({ email, password })),
  });
  const cookie = response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  if (response.status !== 302 || !cookie) throw new Error(`Portal sign-in of ${email} answered ${response.status}`);
  return cookie;
}
