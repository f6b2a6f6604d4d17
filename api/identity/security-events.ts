import { z } from "zod";
import type { Database } from "../platform/db";
import { DEFAULT_LANGUAGE, type Language, type Text, render, text } from "../platform/i18n";
import { shortenAddress } from "../platform/trust-proxy";
import { stripControlCharacters } from "../platform/text";
import { type ClientHints, describeUserAgent, readStoredClientHints, storedClientHints } from "./user-agent";

/*
 * An account's security events (issue 22, docs/decisions/035): its 'Recent activity' on the security
 * page, its data export, and the basis of its alerts. Little is kept: the kind, the time, the browser
 * (User-Agent) and the network (the address shortened to /24 or /48), for 90 days.
 */

/** What can happen, and how the security page names it. */
export const SECURITY_EVENT_LABELS = {
  signed_in: "Signed in",
  sign_in_failed: "Sign-in failed",
  password_changed: "Password changed",
  email_changed: "Email changed",
  two_factor_enabled: "Two-factor authentication turned on",
  two_factor_disabled: "Two-factor authentication turned off",
  recovery_code_used: "Recovery code used",
  passkey_added: "Passkey added",
  passkey_removed: "Passkey removed",
  card_added: "Card added",
  card_removed: "Card removed",
  signed_out_everywhere: "Signed out everywhere",
  signed_out_other_devices: "Signed out other devices",
  data_exported: "Data downloaded",
  auto_renewal_cancelled: "Auto-renewal turned off",
  wireguard_configuration_created: "WireGuard configuration created",
  wireguard_configuration_revoked: "WireGuard configuration revoked",
  service_credentials_created: "Service credentials created",
  service_credentials_reset: "Service credentials reset",
} as const;

export type SecurityEventKind = keyof typeof SECURITY_EVENT_LABELS;
export const SECURITY_EVENT_KINDS = Object.keys(SECURITY_EVENT_LABELS) as [SecurityEventKind, ...SecurityEventKind[]];

/** How long events are kept; the scheduled jobs delete older ones. */
export const SECURITY_EVENT_RETENTION_DAYS = 90;
/** Events on a page of 'Recent activity'. */
export const SECURITY_EVENTS_PAGE_SIZE = 20;

/** Who did it, from where: the request's User-Agent (and client hints) and client address (never stored whole). */
export interface EventSource {
  userAgent?: string | null;
  clientHints?: ClientHints | null;
  ip?: string | null;
}

export interface SecurityEventInput extends EventSource {
  userId: number;
  kind: SecurityEventKind;
  /** A short, non-secret detail: a passkey's name, 'Visa ending 4242'. */
  detail?: string | null;
  /** Business time; defaults to now. */
  at?: Date;
}

/** Records one event. The User-Agent (a header anyone sets) loses its control characters and is cut to 512 characters; the detail is cut to 200. */
export async function recordSecurityEvent(db: Database, input: SecurityEventInput): Promise<void> {
  await db
    .insertInto("security_events")
    .values({
      user_id: input.userId,
      kind: input.kind,
      created_at: (input.at ?? new Date()).toISOString(),
      user_agent: input.userAgent ? stripControlCharacters(input.userAgent).slice(0, 512) || null : null,
      client_hints: storedClientHints(input.clientHints),
      network: shortenAddress(input.ip),
      detail: input.detail ? input.detail.slice(0, 200) : null,
    })
    .execute();
}

export const SecurityEventSchema = z
  .strictObject({
    id: z.int(),
    kind: z.enum(SECURITY_EVENT_KINDS),
    label: z.string().meta({ description: "What the security page shows ('Signed in')." }),
    created_at: z.string().meta({ format: "date-time", description: "ISO 8601, UTC." }),
    user_agent: z.string().nullable(),
    network: z.string().nullable().meta({ description: "The client address shortened: IPv4 to its /24, IPv6 to its /48." }),
    detail: z.string().nullable(),
  })
  .meta({ id: "SecurityEvent" });

export type SecurityEventView = z.infer<typeof SecurityEventSchema>;

function isKind(kind: string): kind is SecurityEventKind {
  return Object.hasOwn(SECURITY_EVENT_LABELS, kind);
}

/**
 * One page (1-based) of the account's events, newest first, and whether there is a next page. Each
 * names its browser ('Firefox 133 on Windows 11'; null when unknown), read from its User-Agent and
 * client hints.
 */
export async function listSecurityEvents(
  db: Database,
  userId: number,
  page = 1,
  pageSize = SECURITY_EVENTS_PAGE_SIZE,
): Promise<{ events: Array<SecurityEventView & { browser: string | null }>; hasMore: boolean }> {
  const rows = await db
    .selectFrom("security_events")
    .select(["id", "kind", "created_at", "user_agent", "client_hints", "network", "detail"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(pageSize + 1)
    .offset((Math.max(1, page) - 1) * pageSize)
    .execute();
  const events = rows
    .slice(0, pageSize)
    .filter((row) => isKind(row.kind))
    .map(({ client_hints, ...row }) => ({
      ...row,
      kind: row.kind as SecurityEventKind,
      label: SECURITY_EVENT_LABELS[row.kind as SecurityEventKind],
      browser: describeUserAgent(row.user_agent, readStoredClientHints(client_hints)),
    }));
  return { events, hasMore: rows.length > pageSize };
}

/** Every event of the account, newest first (the data export). */
export async function allSecurityEvents(db: Database, userId: number): Promise<SecurityEventView[]> {
  const rows = await db
    .selectFrom("security_events")
    .select(["id", "kind", "created_at", "user_agent", "network", "detail"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows
    .filter((row) => isKind(row.kind))
    .map((row) => ({ ...row, kind: row.kind as SecurityEventKind, label: SECURITY_EVENT_LABELS[row.kind as SecurityEventKind] }));
}

/** Deletes events older than the retention (a scheduled job); returns how many went. */
export async function deleteExpiredSecurityEvents(db: Database, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - SECURITY_EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  const result = await db.deleteFrom("security_events").where("created_at", "<", cutoff).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}

/**
 * An event's detail in a language (the security page's, issue 36). The API writes the prose details in
 * English when it records them ('Wrong two-factor code', 'Visa ending 4242', '1 Month, without signing in');
 * they are written in the request's language when they are read. Names a person gave (a passkey's, a
 * configuration's) stay as they are; English is the stored text, byte for byte.
 */
export function detailIn(lng: Language, kind: string, detail: string | null): string | null {
  if (!detail || lng === DEFAULT_LANGUAGE) return detail;
  const t = detailText(kind, detail);
  return t ? render(lng, t) : detail;
}

function detailText(kind: string, detail: string): Text | null {
  if (kind === "sign_in_failed") {
    if (detail === "Wrong two-factor code") return text("messages:security.wrongCode");
    if (detail === "Wrong recovery code") return text("messages:security.wrongRecoveryCode");
    return null;
  }
  if (kind === "card_added" || kind === "card_removed") {
    const card = /^(.+) ending (\d{4})$/.exec(detail);
    if (!card) return null;
    return card[1] === "Card"
      ? text("messages:security.unknownCardEnding", { last4: card[2]! })
      : text("messages:security.cardEnding", { brand: card[1]!, last4: card[2]! });
  }
  if (kind === "auto_renewal_cancelled") {
    const plan = /^(.+), without signing in$/.exec(detail);
    return plan ? text("messages:security.withoutSignIn", { plan: plan[1]! }) : null;
  }
  return null;
}
