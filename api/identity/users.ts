import type { ExpressionBuilder } from "kysely";
import { z } from "zod";
import type { Database } from "../platform/db";
import type { DB, User } from "../platform/db/schema";
import { type Clock, systemClock } from "../platform/clock";
import { LANGUAGES, type Language, asLanguage, isLanguage } from "../platform/i18n";

/** The user object every endpoint returns. */
export const UserSchema = z
  .strictObject({
    id: z.int(),
    email: z.string().meta({ format: "email" }),
    name: z.string().nullable(),
    has_password: z.boolean(),
    email_verified_at: z.string().nullable().meta({ format: "date-time" }),
    created_at: z.string().meta({ format: "date-time" }),
    language: z
      .enum(LANGUAGES)
      .nullable()
      .meta({
        description:
          "The account's language (en, de, fr, es): its emails and invoices are written in it (English while null: the customer has chosen none yet). PUT /api/account/language sets it.",
      }),
  })
  .meta({ id: "User" });

export type PublicUser = z.infer<typeof UserSchema>;

/** What every sign-in answers: the new bearer token and the user. */
export const LoginResultSchema = z
  .strictObject({
    token: z.string().meta({ description: "Bearer token; shown only here." }),
    user: UserSchema,
  })
  .meta({ id: "LoginResult" });

export function publicUser(
  user: Pick<User, "id" | "email" | "name" | "password_hash" | "email_verified_at" | "created_at" | "language">,
): PublicUser {
  return {
    id: Number(user.id),
    email: user.email,
    name: user.name,
    has_password: Boolean(user.password_hash),
    email_verified_at: user.email_verified_at,
    created_at: user.created_at,
    language: isLanguage(user.language) ? user.language : null,
  };
}

/**
 * Creates an account without a password (as Google/Apple sign-in will), email verified now;
 * returns its id. Such accounts get a password through forgot-password or the set-password email.
 */
export async function createUserWithoutPassword(
  db: Database,
  user: { email: string; name?: string | null; language?: Language },
  clock: Clock = systemClock,
): Promise<number> {
  const now = clock.now().toISOString();
  const row = await db
    .insertInto("users")
    .values({
      email: user.email.trim().toLowerCase(),
      name: user.name ?? null,
      password_hash: null,
      email_verified_at: now,
      created_at: now,
      updated_at: now,
      ...(user.language ? { language: user.language } : {}),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/*
 * A deleted account (docs/decisions/015) keeps its row, anonymised, for the payment records it
 * holds: it is nobody. THE check that every way in uses (the user lookups below, bearer tokens,
 * passkeys, SSO tokens, desktop codes, Google/Apple links, the two-factor step), so that a credential
 * that somehow outlived the deletion still opens nothing and answers like an unknown account.
 */
export const notDeleted = (eb: ExpressionBuilder<DB, "users">) => eb("users.deleted_at", "is", null);

/** The account with this email, unless deleted (then none, as for an unknown email). */
export async function findUserByEmail(db: Database, email: string): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("email", "=", email.trim().toLowerCase()).where(notDeleted).executeTakeFirst();
}

/** The account with this id, unless deleted. */
export async function findUserById(db: Database, id: number): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).where(notDeleted).executeTakeFirst();
}

/** The account's language (emails, invoices); English for an unknown account. */
export async function languageOfUser(db: Database, id: number): Promise<Language> {
  const row = await db.selectFrom("users").select("language").where("id", "=", id).executeTakeFirst();
  return asLanguage(row?.language);
}

/** The language of the account with this email (unless deleted), for an email to it; English when there is none. */
export async function languageOfEmail(db: Database, email: string): Promise<Language> {
  const row = await db.selectFrom("users").select("language").where("email", "=", email.trim().toLowerCase()).where(notDeleted).executeTakeFirst();
  return asLanguage(row?.language);
}

/** Sets the account's language. */
export async function setLanguage(db: Database, id: number, language: Language, clock: Clock = systemClock): Promise<void> {
  await db.updateTable("users").set({ language, updated_at: clock.now().toISOString() }).where("id", "=", id).execute();
}
