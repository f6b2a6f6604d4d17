import { z } from "zod";
import { type Language, type Text, text } from "../platform/i18n";
import type { ApiConfig } from "../platform/config";
import { type Database, dialectOf, isUniqueViolation } from "../platform/db";
import type { AccountLink, LinkType, User } from "../platform/db/schema";
import { type Param, prepare } from "../platform/db/prepared";
import type { Clock } from "../platform/clock";
import { DomainError } from "../platform/errors";
import { stripControlCharacters } from "../platform/text";
import { type IdTokenClaims, IdTokenError, verifyIdToken } from "./id-tokens";
import { createUserWithoutPassword, findUserById } from "./users";

/*
 * Google and Apple accounts linked to users (account_links). A link is keyed on the provider's
 * `sub`, never on the email: the email at the provider may change, the sub does not.
 *
 * Sign-in with a provider (thirdparty-login):
 *   1. a link with (link_type, sub) exists -> its user;
 *   2. else a user with the token's email exists -> that user, and the link is added, only because
 *      the provider asserts email_verified (otherwise 403: sign in another way, then connect);
 *   3. else a new account without a password (email verified now) and the link.
 * Connecting (signed in) adds a link; disconnecting removes one unless it is the account's last way
 * to sign in (no password and no other link).
 */

export type { LinkType } from "../platform/db/schema";

export const LINK_TYPES = ["GOOGLE", "APPLE"] as const satisfies readonly LinkType[];

export function providerLabel(linkType: LinkType): string {
  return linkType === "GOOGLE" ? "Google" : "Apple";
}

export const LINK_MESSAGES = {
  loggedIn: "Login successful.",
  connected: "Account connected.",
  disconnected: "Account disconnected.",
  notFound: "Connection not found.",
  providerOff: (label: string) => `Sign-in with ${label} is not available.`,
  lastWayToSignIn: "Set a password before disconnecting your only way to sign in.",
  existingAccount: (label: string) =>
    `This email belongs to an existing account. Sign in with your password, then connect your ${label} account.`,
  connectedElsewhere: (label: string) => `This ${label} account is already connected to another account.`,
  alreadyConnected: (label: string) => `Your account is already connected to ${label}.`,
  loginNotVerified: (label: string) => `Login failed: the ${label} sign-in could not be verified. Please try again.`,
  loginEmailMismatch: (label: string) => `Login failed: the email does not match your ${label} account.`,
  loginEmailUnverified: (label: string) => `Login failed: ${label} has not verified this email address.`,
  connectNotVerified: (label: string) => `The ${label} sign-in could not be verified. Please try again.`,
  connectEmailMismatch: (label: string) => `The email does not match your ${label} account.`,
  connectEmailUnverified: (label: string) => `${label} has not verified this email address.`,
  unavailable: (label: string) => `Sign-in with ${label} is unavailable right now. Please try again later.`,
  connectReplayed: (label: string) => `This ${label} sign-in was already used. Please connect ${label} again.`,
  loginReplayed: (label: string) => `Login failed: this ${label} sign-in was already used. Please sign in with ${label} again.`,
} as const;

/** The issuer and audience (our client id) of a provider's ID tokens. */
export function providerOf(config: ApiConfig, linkType: LinkType): { issuer: string; audience: string } {
  const p = linkType === "GOOGLE" ? config.identity.google : config.identity.apple;
  // Off (no credentials outside sandbox mode): as if the route did not exist for this provider.
  if (!p) {
    const provider = providerLabel(linkType);
    throw new DomainError("provider_off", LINK_MESSAGES.providerOff(provider), { text: text("messages:links.providerOff", { provider }) });
  }
  return { issuer: p.issuer, audience: p.clientId };
}

/**
 * Verifies a provider's ID token for thirdparty-login or connect (signature, issuer, audience,
 * expiry; the token's email must equal `email`, without regard to case). Whether the email is
 * verified is left to the caller (claims.emailVerified). Throws DomainError: provider_unavailable when
 * the provider cannot be reached, else provider_sign_in_failed (sign-in) or provider_token_rejected
 * (connect) with a message for the person.
 */
export async function verifyProviderToken(
  config: ApiConfig,
  opts: { linkType: LinkType; idToken: string; email: string; purpose: "login" | "connect" },
): Promise<IdTokenClaims> {
  const label = providerLabel(opts.linkType);
  const login = opts.purpose === "login";
  const provider = { provider: label };
  const fail = (message: string, loginText: Text, connectText: Text) =>
    login
      ? new DomainError("provider_sign_in_failed", message, { text: loginText })
      : new DomainError("provider_token_rejected", message, { field: "firebase_id_token", text: connectText });
  let claims: IdTokenClaims;
  try {
    claims = await verifyIdToken(opts.idToken, providerOf(config, opts.linkType));
  } catch (error) {
    if (!(error instanceof IdTokenError)) throw error;
    if (error.reason === "unavailable") {
      throw new DomainError("provider_unavailable", LINK_MESSAGES.unavailable(label), { text: text("messages:links.unavailable", provider) });
    }
    throw fail(login ? LINK_MESSAGES.loginNotVerified(label) : LINK_MESSAGES.connectNotVerified(label), text("messages:links.loginNotVerified", provider), text("messages:links.connectNotVerified", provider));
  }
  if (!claims.email || claims.email !== opts.email.trim().toLowerCase()) {
    throw fail(login ? LINK_MESSAGES.loginEmailMismatch(label) : LINK_MESSAGES.connectEmailMismatch(label), text("messages:links.loginEmailMismatch", provider), text("messages:links.connectEmailMismatch", provider));
  }
  return claims;
}

/** The identity provider of a link, as answers give it. */
export const LinkTypeSchema = z
  .enum(LINK_TYPES)
  .meta({ id: "LinkType", description: "The identity provider. Accepted in any case." });

/** A linked Google or Apple account, as the API answers it. */
export const LinkedAccountSchema = z
  .strictObject({
    id: z.int().meta({ description: "The link's id (link_id of /api/account/disconnect)." }),
    link_type: LinkTypeSchema,
    email: z.string().meta({ description: "The provider account's email, as its last ID token gave it." }),
  })
  .meta({ id: "LinkedAccount" });

export type PublicLink = z.infer<typeof LinkedAccountSchema>;

export function publicLink(link: Pick<AccountLink, "id" | "link_type" | "email">): PublicLink {
  return { id: Number(link.id), link_type: link.link_type, email: link.email };
}

/** The user's links, Google first. */
export async function listLinks(db: Database, userId: number): Promise<PublicLink[]> {
  const rows = await linksOfUser.execute(db, { userId });
  return rows.map(publicLink);
}

// The account home asks it on every load (prepared once: api/platform/db/prepared.ts).
const linksOfUser = prepare((db, param: Param<{ userId: number }>) =>
  db.selectFrom("account_links").select(["id", "link_type", "email"]).where("user_id", "=", param("userId")).orderBy("link_type", "desc").orderBy("id"),
);

export async function findLinkBySubject(
  db: Database,
  linkType: LinkType,
  subject: string,
): Promise<AccountLink | undefined> {
  return db
    .selectFrom("account_links")
    .selectAll()
    .where("link_type", "=", linkType)
    .where("subject", "=", subject)
    .executeTakeFirst();
}

/** Runs `work` in a transaction, again (up to twice more) when a parallel request won a unique constraint. */
async function retryOnConflict<T>(db: Database, work: (trx: Database) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= 2 || !isUniqueViolation(error)) throw error;
    }
  }
}

/**
 * The name of a new account: the given name, else the token's, else the part of the email before the @.
 * Both names come from the provider: cleaned (platform/text.ts) before they are stored.
 */
export function accountName(name: string | undefined, claims: IdTokenClaims, email: string): string {
  return stripControlCharacters(name ?? "") || claims.name || email.split("@")[0] || email;
}

/**
 * Finds or creates the account a provider sign-in belongs to (the rule at the top of this file).
 * Throws 403 (an existing account's email, not verified by the provider) or 401 (a new account's
 * email not verified by the provider).
 */
export async function accountForProviderSignIn(
  db: Database,
  clock: Clock,
  opts: { linkType: LinkType; claims: IdTokenClaims; name?: string; /** A new account's language (else English). */ language?: Language },
): Promise<{ user: User; created: boolean; linked: boolean }> {
  const { linkType, claims } = opts;
  const label = providerLabel(linkType);
  const email = claims.email!;
  return retryOnConflict(db, async (trx) => {
    const now = clock.now().toISOString();
    const link = await findLinkBySubject(trx, linkType, claims.sub);
    const linked = link ? await findUserById(trx, link.user_id) : undefined;
    if (link && linked) {
      if (link.email !== email) {
        await trx.updateTable("account_links").set({ email }).where("id", "=", link.id).execute();
      }
      return { user: linked, created: false, linked: false };
    }
    // A link left to a deleted account (deletion removes them) signs in no one: it goes, and the
    // provider's account is then unknown, like any other.
    if (link) await trx.deleteFrom("account_links").where("id", "=", link.id).execute();

    const existing = await trx.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
    if (!claims.emailVerified) {
      if (existing) {
        throw new DomainError("password_sign_in_required", LINK_MESSAGES.existingAccount(label), { text: text("messages:links.existingAccount", { provider: label }) });
      }
      throw new DomainError("provider_email_unverified", LINK_MESSAGES.loginEmailUnverified(label), { text: text("messages:links.loginEmailUnverified", { provider: label }) });
    }

    if (existing) {
      // The provider vouches for the mailbox, as an emailed code would. An account that already has
      // a link of this type (another account at the provider with the same email, e.g. re-created)
      // is signed in without a second link.
      const own = await trx
        .selectFrom("account_links")
        .select("id")
        .where("user_id", "=", existing.id)
        .where("link_type", "=", linkType)
        .executeTakeFirst();
      if (!own) {
        await trx
          .insertInto("account_links")
          .values({ user_id: existing.id, link_type: linkType, subject: claims.sub, email, created_at: now })
          .execute();
      }
      return { user: existing, created: false, linked: !own };
    }

    const userId = await createUserWithoutPassword(trx, { email, name: accountName(opts.name, claims, email), language: opts.language }, clock);
    await trx
      .insertInto("account_links")
      .values({ user_id: userId, link_type: linkType, subject: claims.sub, email, created_at: now })
      .execute();
    const user = await trx.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    return { user, created: true, linked: true };
  });
}

/** Links a provider account to a signed-in user; 409 when it is linked elsewhere or the user has one of this type. */
export async function connectLink(
  db: Database,
  clock: Clock,
  opts: { userId: number; linkType: LinkType; claims: IdTokenClaims },
): Promise<PublicLink> {
  const { userId, linkType, claims } = opts;
  const label = providerLabel(linkType);
  const conflict = async (trx: Database): Promise<DomainError | null> => {
    const bySubject = await findLinkBySubject(trx, linkType, claims.sub);
    if (bySubject && Number(bySubject.user_id) !== userId) {
      return new DomainError("link_taken", LINK_MESSAGES.connectedElsewhere(label), { text: text("messages:links.connectedElsewhere", { provider: label }) });
    }
    const own = await trx
      .selectFrom("account_links")
      .select("id")
      .where("user_id", "=", userId)
      .where("link_type", "=", linkType)
      .executeTakeFirst();
    return bySubject || own ? new DomainError("already_connected", LINK_MESSAGES.alreadyConnected(label), { text: text("messages:links.alreadyConnected", { provider: label }) }) : null;
  };
  try {
    return await db.transaction().execute(async (trx) => {
      const refused = await conflict(trx);
      if (refused) throw refused;
      const row = await trx
        .insertInto("account_links")
        .values({
          user_id: userId,
          link_type: linkType,
          subject: claims.sub,
          email: claims.email!,
          created_at: clock.now().toISOString(),
        })
        .returning(["id", "link_type", "email"])
        .executeTakeFirstOrThrow();
      return publicLink(row);
    });
  } catch (error) {
    // A parallel connect won: answer as if it had come first.
    if (isUniqueViolation(error)) {
      throw (await conflict(db)) ?? new DomainError("already_connected", LINK_MESSAGES.alreadyConnected(label), { text: text("messages:links.alreadyConnected", { provider: label }) });
    }
    throw error;
  }
}

/**
 * Removes one of the user's links: 404 unless it is theirs and of that type; 409 when it is the
 * last way to sign in (no password, no other link). The user row is locked (PostgreSQL) so that two
 * parallel disconnects cannot remove both links of an account without a password.
 */
export async function disconnectLink(
  db: Database,
  opts: { userId: number; linkId: number; linkType: LinkType },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    let userQuery = trx.selectFrom("users").select(["id", "password_hash"]).where("id", "=", opts.userId);
    if (dialectOf(trx) === "postgres") userQuery = userQuery.forUpdate();
    const user = await userQuery.executeTakeFirst();
    if (!user) throw new DomainError("not_found", LINK_MESSAGES.notFound);
    const links = await trx
      .selectFrom("account_links")
      .select(["id", "link_type"])
      .where("user_id", "=", opts.userId)
      .execute();
    const link = links.find((l) => Number(l.id) === opts.linkId && l.link_type === opts.linkType);
    if (!link) throw new DomainError("not_found", LINK_MESSAGES.notFound);
    if (!user.password_hash && links.length <= 1) throw new DomainError("last_sign_in_method", LINK_MESSAGES.lastWayToSignIn);
    await trx.deleteFrom("account_links").where("id", "=", link.id).execute();
  });
}
