import { createHash } from "node:crypto";
import { languageOfUser } from "./users";
import type { Mail } from "../platform/mailer";
import type { PlatformServices } from "../platform/services";
import { shortenAddress } from "../platform/trust-proxy";
import { type EmailOrigin, newSignInEmail } from "./emails";
import { createOneTimeToken } from "./one-time-tokens";
import { type EventSource, type SecurityEventKind, recordSecurityEvent } from "./security-events";
import type { SignInDevice } from "./sessions";
import { describeUserAgent } from "./user-agent";

/*
 * Sign-ins and their alerts (issue 22, docs/decisions/035). Every successful sign-in records 'Signed in'
 * and looks its browser or app up among the account's known ones (known_sign_in_devices: the sha256 of
 * the portal's random device cookie, or of an app's device id). The first sign-in from an unknown one
 * emails 'New sign-in to your account', once (the unique constraint decides under a burst), unless the
 * account turned the alerts off, or it is the account's first device (the one that created it).
 */

/** A browser's or app's key as the portal (its device cookie) or an app (its device id) sends it. */
const DEVICE_KEY = /^[A-Za-z0-9_.:-]{16,200}$/;

/** The key when it looks like one, else null (then the sign-in counts as from an unknown device). */
export function parseDeviceKey(value: string | string[] | undefined | null): string | null {
  const key = Array.isArray(value) ? value[0] : value;
  return key && DEVICE_KEY.test(key) ? key : null;
}

/**
 * The key of an app that signs in without a device id (issue 33): what it says it is, the platform,
 * system, brand, model and User-Agent, so that one app on one device alerts once however often it signs
 * in. Not its address: a VPN app changes address with every server. Two identical devices of one
 * account then count as one, which only spares an alert.
 */
export function describedDeviceKey(device: Pick<SignInDevice, "platform" | "device_os" | "device_os_version" | "device_brand" | "device_model" | "user_agent">): string {
  const described = [device.platform, device.device_os, device.device_os_version, device.device_brand, device.device_model, device.user_agent];
  return `described:${createHash("sha256").update(JSON.stringify(described)).digest("hex")}`;
}

export function hashDeviceKey(key: string): string {
  return createHash("sha256").update(`sign-in-device:${key}`).digest("hex");
}

/** How long the alert's "it was not me" link works (a password reset token). */
export const SECURE_LINK_TTL_SECONDS = 24 * 3600;

type Services = Pick<PlatformServices, "db" | "config" | "clock" | "mail" | "logger">;

export function emailOrigin(source: EventSource, at: Date): EmailOrigin {
  return { at, browser: describeUserAgent(source.userAgent, source.clientHints), network: shortenAddress(source.ip) };
}

/** Records a security event at the business time. Never fails the request: a failure is logged. */
export async function noteSecurityEvent(
  ctx: Pick<PlatformServices, "db" | "clock" | "logger">,
  opts: EventSource & { userId: number; kind: SecurityEventKind; detail?: string | null },
): Promise<void> {
  try {
    await recordSecurityEvent(ctx.db, { ...opts, at: ctx.clock.now() });
  } catch (error) {
    ctx.logger.error(`Security event ${opts.kind} not recorded: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Sends a security email, best effort: a mail failure never changes the answer. */
export async function deliverSecurityEmail(ctx: Pick<PlatformServices, "mail" | "logger">, mail: Mail): Promise<void> {
  try {
    await ctx.mail.deliver(mail);
  } catch (error) {
    ctx.logger.error(`Mail to ${mail.to} (${mail.subject}) could not be sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * After a successful sign-in (any method, also a new account's first session): records 'Signed in' and
 * sends the new sign-in alert when the browser or app is new to the account (`deviceKey`: the device id
 * it sent, else describedDeviceKey). Returns whether an alert was sent.
 */
export async function noteSignIn(
  ctx: Services,
  opts: EventSource & { user: { id: number; email: string; sign_in_alerts: number }; deviceKey: string },
): Promise<boolean> {
  const { db, clock } = ctx;
  const at = clock.now();
  await noteSecurityEvent(ctx, { userId: opts.user.id, kind: "signed_in", userAgent: opts.userAgent, clientHints: opts.clientHints, ip: opts.ip });

  const nowIso = at.toISOString();
  const known = await db
    .selectFrom("known_sign_in_devices")
    .select("id")
    .where("user_id", "=", opts.user.id)
    .limit(1)
    .executeTakeFirst();
  const keyHash = hashDeviceKey(opts.deviceKey);
  // One statement decides, so that a parallel burst from one new device alerts once.
  const inserted = await db
    .insertInto("known_sign_in_devices")
    .values({ user_id: opts.user.id, device_key_hash: keyHash, created_at: nowIso, last_seen_at: nowIso })
    .onConflict((oc) => oc.columns(["user_id", "device_key_hash"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) {
    await db
      .updateTable("known_sign_in_devices")
      .set({ last_seen_at: nowIso })
      .where("user_id", "=", opts.user.id)
      .where("device_key_hash", "=", keyHash)
      .execute();
    return false;
  }
  // The account's first device (the one that created it, or its first sign-in since devices are known).
  if (!known) return false;
  return sendNewSignInAlert(ctx, opts, at);
}

async function sendNewSignInAlert(
  ctx: Services,
  opts: EventSource & { user: { id: number; email: string; sign_in_alerts: number } },
  at: Date,
): Promise<boolean> {
  const { db, config } = ctx;
  if (Number(opts.user.sign_in_alerts) === 0) return false;
  const token = await createOneTimeToken(db, { purpose: "reset", userId: opts.user.id, ttlSeconds: SECURE_LINK_TTL_SECONDS });
  const link = `${config.publicUrl}/reset-password?${new URLSearchParams({ token, email: opts.user.email })}`;
  const lng = await languageOfUser(db, opts.user.id);
  await deliverSecurityEmail(ctx, newSignInEmail(opts.user.email, emailOrigin(opts, at), link, config.publicUrl, lng));
  return true;
}

/** Whether the account gets the new sign-in alerts. */
export async function signInAlertsOn(db: PlatformServices["db"], userId: number): Promise<boolean> {
  const row = await db.selectFrom("users").select("sign_in_alerts").where("id", "=", userId).executeTakeFirst();
  return Number(row?.sign_in_alerts ?? 1) === 1;
}

export async function setSignInAlerts(ctx: Pick<PlatformServices, "db" | "clock">, userId: number, on: boolean): Promise<void> {
  await ctx.db
    .updateTable("users")
    .set({ sign_in_alerts: on ? 1 : 0, updated_at: ctx.clock.now().toISOString() })
    .where("id", "=", userId)
    .execute();
}
