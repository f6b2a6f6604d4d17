import { randomInt } from "node:crypto";
import { z } from "zod";
import type { PasswordHasher } from "../identity/passwords";
import { type Database, isUniqueViolation } from "../platform/db";
import { DomainError } from "../platform/errors";
import { type RateLimiter, tryAgainIn } from "../platform/rate-limit";

/*
 * Service credentials for OpenVPN and IKEv2 (issue 34, docs/decisions/058): a username and password
 * that are not the account's, for apps that ask for one. One pair per account. The username is made
 * here ('u' and 11 random letters and digits, never the email) and stays; the password (24 random
 * letters and digits, about 143 bits) is shown once and kept only as its argon2id hash. A reset makes a
 * new password and replaces the hash in one statement: the old one fails from the next check on.
 */

export const CREDENTIALS_MESSAGES = {
  created: "Service credentials created.",
  reset: "Service credentials reset.",
  accepted: "Accepted.",
  wrong: "Wrong username or password.",
  noPlan: "This account has no plan.",
  tooManyFailures: (seconds: number) => `Too many failed attempts for this username. ${tryAgainIn(seconds)}`,
} as const;

const PASSWORD_LENGTH = 24;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const USERNAME_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export const CredentialsSchema = z
  .strictObject({
    username: z.string().meta({ examples: ["u7k2m9q4x1c8p"] }),
    created_at: z.string().meta({ format: "date-time", description: "When the current password was made." }),
  })
  .meta({ id: "VpnCredentials" });

export const NewCredentialsSchema = z
  .strictObject({
    username: z.string(),
    password: z.string().meta({ description: `Shown once: ${PASSWORD_LENGTH} random letters and digits. Only its hash is kept.` }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "VpnNewCredentials" });

function randomText(alphabet: string, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[randomInt(alphabet.length)];
  return text;
}

export async function credentialsOf(db: Database, userId: number): Promise<z.infer<typeof CredentialsSchema> | null> {
  const row = await db.selectFrom("vpn_credentials").select(["username", "created_at"]).where("user_id", "=", userId).executeTakeFirst();
  return row ?? null;
}

/**
 * Makes the account's credentials, or a new password for them. Making them needs a plan (`hasPlan`);
 * a reset does not: whoever holds an old password can always be shut out. Answers the password (once)
 * and whether the credentials were new.
 */
export async function issueCredentials(
  db: Database,
  passwords: PasswordHasher,
  input: { userId: number; hasPlan: boolean; now: Date },
): Promise<{ username: string; password: string; created_at: string; created: boolean }> {
  const existing = await credentialsOf(db, input.userId);
  if (!existing && !input.hasPlan) throw new DomainError("plan_required", "A plan is needed for manual setup.");
  const password = randomText(ALPHABET, PASSWORD_LENGTH);
  const passwordHash = await passwords.hash(password);
  const createdAt = input.now.toISOString();
  for (let attempt = 0; ; attempt++) {
    const username = `u${randomText(USERNAME_ALPHABET, 11)}`;
    try {
      // One statement: a parallel first creation turns into a reset of the same username, never two rows.
      const row = await db
        .insertInto("vpn_credentials")
        .values({ user_id: input.userId, username, password_hash: passwordHash, created_at: createdAt })
        .onConflict((oc) => oc.column("user_id").doUpdateSet({ password_hash: passwordHash, created_at: createdAt }))
        .returning("username")
        .executeTakeFirstOrThrow();
      return { username: row.username, password, created_at: createdAt, created: !existing };
    } catch (error) {
      // Another account drew the same username (about one in 10^17): draw again.
      if (attempt < 3 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/** The failures of one username per window, before the password is looked at (POST /api/vpn/authenticate). */
export interface AuthenticateLimits {
  limiter: RateLimiter;
  maxFailures: number;
  windowSeconds: number;
}

export function authenticateFailureKey(username: string): string {
  return `vpn-auth-fail:${username}`;
}

/**
 * A VPN server's check of service credentials: accepted when the password is right and the account
 * has a plan now (`hasPlan` asks). Each try is reserved on the username's allowance before argon2
 * runs, so a parallel burst, on any number of instances, gets no more wrong guesses than the limit; a
 * right password gives its try back. Unknown usernames cost a hash too, so timing tells nothing.
 */
export async function authenticateService(
  db: Database,
  passwords: PasswordHasher,
  limits: AuthenticateLimits,
  input: { username: string; password: string },
  hasPlan: (userId: number) => Promise<boolean>,
): Promise<void> {
  const username = input.username.toLowerCase();
  const key = authenticateFailureKey(username);
  const reservation = await limits.limiter.reserve(key, limits.maxFailures, limits.windowSeconds);
  if (!reservation) {
    const seconds = (await limits.limiter.blockedFor([[key, limits.maxFailures]])) ?? 1;
    throw new DomainError("rate_limited", CREDENTIALS_MESSAGES.tooManyFailures(seconds), { headers: { "Retry-After": String(seconds) } });
  }
  const row = await db
    .selectFrom("vpn_credentials as c")
    .innerJoin("users as u", "u.id", "c.user_id")
    .select(["c.user_id", "c.password_hash"])
    .where("c.username", "=", username)
    .where("u.deleted_at", "is", null)
    .executeTakeFirst();
  if (!(await passwords.verify(row?.password_hash ?? null, input.password)) || !row) {
    throw new DomainError("invalid_credentials", CREDENTIALS_MESSAGES.wrong);
  }
  await limits.limiter.release([reservation]);
  if (!(await hasPlan(Number(row.user_id)))) throw new DomainError("invalid_credentials", CREDENTIALS_MESSAGES.noPlan);
}
