import { createHash, randomBytes } from "node:crypto";

/** 32 random bytes, base64url (43 characters). Only its sha256 hex is stored. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Cheap shape check before any database lookup. */
export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/** The token from an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}
