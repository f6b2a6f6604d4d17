import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt } from "node:crypto";
import { type Database, isUniqueViolation } from "../platform/db";
import type { User } from "../platform/db/schema";
import { hashToken } from "../platform/tokens";
import { notDeleted } from "./users";

/*
 * Desktop hand-off codes. A Desktop sign-in made in the browser asks for a short code (8 characters
 * of an unambiguous alphabet, shown XXXX-XXXX) that the person types into the desktop app, which
 * redeems it for THE SAME bearer token. Tokens are never stored in clear: the row keeps sha256(code)
 * to find it, and the token encrypted with AES-256-GCM under HKDF-SHA256(code, per-row random salt),
 * so only a holder of the code can recover it. Valid 300 s of real time, single use (one conditional
 * UPDATE claims the row; the ciphertext is then erased). A new code for the same token retires the
 * older ones. Redemption also requires the token to be live (not revoked, not expired).
 */

export const DESKTOP_CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
export const DESKTOP_CODE_LENGTH = 8;
export const DESKTOP_CODE_TTL_SECONDS = 300 as const;

const HKDF_INFO = "vpn-portal desktop-code token v1";
const KEEP_AFTER_EXPIRY_MS = 86_400_000;
const SWEEP_INTERVAL_MS = 10 * 60_000;
let lastSweep = 0;

/** 8 random characters of the alphabet, shown as XXXX-XXXX. */
export function generateDesktopCode(): string {
  let code = "";
  for (let i = 0; i < DESKTOP_CODE_LENGTH; i++) code += DESKTOP_CODE_ALPHABET[randomInt(DESKTOP_CODE_ALPHABET.length)];
  return formatDesktopCode(code);
}

export function formatDesktopCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

const NORMALIZED_SHAPE = new RegExp(`^[${DESKTOP_CODE_ALPHABET}]{${DESKTOP_CODE_LENGTH}}$`);

/** The code without dashes or spaces, upper case; null when it cannot be a code. */
export function normalizeDesktopCode(input: string): string | null {
  const code = input.replace(/[\s-]/g, "").toUpperCase();
  return NORMALIZED_SHAPE.test(code) ? code : null;
}

function hashCode(normalized: string): string {
  return createHash("sha256").update(normalized, "utf8").digest("hex");
}

function keyFor(normalized: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", normalized, salt, HKDF_INFO, 32));
}

/** Ties a ciphertext to its token row (additional authenticated data). */
function aad(tokenId: number): Buffer {
  return Buffer.from(`desktop-code:${tokenId}`, "utf8");
}

function encrypt(token: string, normalized: string, salt: Buffer, tokenId: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(normalized, salt), iv);
  cipher.setAAD(aad(tokenId));
  const data = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
  return Buffer.concat([iv, data, cipher.getAuthTag()]).toString("base64url");
}

function decrypt(ciphertext: string, normalized: string, salt: Buffer, tokenId: number): string | null {
  try {
    const raw = Buffer.from(ciphertext, "base64url");
    if (raw.length < 12 + 16 + 1) return null;
    const decipher = createDecipheriv("aes-256-gcm", keyFor(normalized, salt), raw.subarray(0, 12));
    decipher.setAAD(aad(tokenId));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * Makes a code (XXXX-XXXX, 300 s) that redeems to `token` (the caller's live bearer token, whose row
 * is `tokenId`) and retires older codes of the same token. `nowMs` for tests.
 */
export async function createDesktopCode(
  db: Database,
  opts: { token: string; tokenId: number; userId: number; nowMs?: number },
): Promise<{ code: string; expiresIn: typeof DESKTOP_CODE_TTL_SECONDS }> {
  const now = opts.nowMs ?? Date.now();
  const nowIso = new Date(now).toISOString();
  await db
    .updateTable("desktop_codes")
    .set({ used_at: nowIso, token_ciphertext: null })
    .where("token_id", "=", opts.tokenId)
    .where("used_at", "is", null)
    .execute();
  for (let attempt = 0; ; attempt++) {
    const code = generateDesktopCode();
    const normalized = normalizeDesktopCode(code)!;
    const salt = randomBytes(16);
    try {
      await db
        .insertInto("desktop_codes")
        .values({
          code_hash: hashCode(normalized),
          token_ciphertext: encrypt(opts.token, normalized, salt, opts.tokenId),
          salt: salt.toString("base64url"),
          user_id: opts.userId,
          token_id: opts.tokenId,
          created_at: nowIso,
          expires_at: new Date(now + DESKTOP_CODE_TTL_SECONDS * 1000).toISOString(),
        })
        .execute();
    } catch (error) {
      // The same code as an older row (1 in 2^40 per row): draw another.
      if (attempt < 3 && isUniqueViolation(error)) continue;
      throw error;
    }
    await maybeSweep(db);
    return { code, expiresIn: DESKTOP_CODE_TTL_SECONDS };
  }
}

/**
 * Uses up a code (with or without the dash, any case) and returns the bearer token it carries and
 * its user, or null when the code is unknown, expired, used, or its token is no longer live.
 */
export async function redeemDesktopCode(db: Database, input: string): Promise<{ token: string; user: User } | null> {
  const normalized = normalizeDesktopCode(input);
  if (!normalized) return null;
  const nowIso = new Date().toISOString();
  const row = await db
    .updateTable("desktop_codes")
    .set({ used_at: nowIso })
    .where("code_hash", "=", hashCode(normalized))
    .where("used_at", "is", null)
    .where("expires_at", ">", nowIso)
    .returning(["id", "token_ciphertext", "salt", "token_id"])
    .executeTakeFirst();
  if (!row) return null;
  await db.updateTable("desktop_codes").set({ token_ciphertext: null }).where("id", "=", row.id).execute();
  if (!row.token_ciphertext) return null;
  const tokenId = Number(row.token_id);
  const token = decrypt(row.token_ciphertext, normalized, Buffer.from(row.salt, "base64url"), tokenId);
  if (!token) return null;
  const live = await db
    .selectFrom("tokens")
    .innerJoin("users", "users.id", "tokens.user_id")
    .selectAll("users")
    .where("tokens.id", "=", tokenId)
    .where("tokens.token_hash", "=", hashToken(token))
    .where("tokens.revoked_at", "is", null)
    .where("tokens.expires_at", ">", nowIso)
    .where(notDeleted)
    .executeTakeFirst();
  return live ? { token, user: live } : null;
}

async function maybeSweep(db: Database): Promise<void> {
  const real = Date.now();
  if (real - lastSweep < SWEEP_INTERVAL_MS) return;
  lastSweep = real;
  await db
    .deleteFrom("desktop_codes")
    .where("expires_at", "<", new Date(real - KEEP_AFTER_EXPIRY_MS).toISOString())
    .execute();
}
