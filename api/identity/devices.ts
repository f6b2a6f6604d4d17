import { z } from "zod";
import type { Database } from "../platform/db";
import { DomainError } from "../platform/errors";
import { WEB_PLATFORM, revokeSessions } from "./sessions";
import { LINUX_DISTRIBUTIONS, browserLabel } from "./user-agent";

/*
 * Connected devices (commerce spec §2, §3, §7): the device rows of a user that still have a live
 * (unrevoked, unexpired) bearer token, and their termination. Every token is tied to one device row
 * (DESIGN §4), so terminating a device revokes its tokens and the device drops out of the list.
 */

export const DEVICE_MESSAGES = {
  listed: "Connected devices",
  terminated: "Device terminated successfully",
  allTerminated: "All devices terminated successfully",
  othersTerminated: "Other devices signed out",
  notFound: "Device not found.",
  forbidden: "You can only manage your own devices.",
} as const;

export const DEVICE_ICONS = ["windows", "apple", "android", "linux", "desktop", "browser"] as const;
export type DeviceIcon = (typeof DEVICE_ICONS)[number];

export const DeviceSchema = z
  .strictObject({
    id: z.int(),
    name: z.string().meta({
      description:
        "What the device is, ready to show. Web sign-ins: '<browser> <major> on <OS> <version>' ('Firefox 133 on Windows 11', 'Safari 17 on iOS 17.5'), from the User-Agent and client hints at sign-in; a part that is unknown is left out, and 'Web browser' when nothing is known. Other platforms (the desktop app): the brand and model they sent, on their OS ('Dell XPS 13 on Windows 11'), or the platform.",
      examples: ["Firefox 133 on Windows 11", "Chrome 131 on Android 14", "Dell XPS 13 on Linux 6.8"],
    }),
    device_icon: z.enum(DEVICE_ICONS).meta({
      description:
        "From the OS: Windows → windows; macOS, iOS, iPadOS → apple; Android → android; Linux, its distributions (Ubuntu…) and Chrome OS → linux; otherwise from the platform: 'Web Browser' → browser, anything else → desktop.",
    }),
    device_os: z.string().nullable(),
    device_os_version: z.string().nullable(),
    device_model: z.string().nullable().meta({ description: "For web sign-ins: the browser and its major version ('Chrome 131')." }),
    device_brand: z.string().nullable().meta({ description: "For web sign-ins: the browser ('Chrome')." }),
    platform: z.string().meta({ examples: ["Web Browser", "Desktop"] }),
    last_login_at: z.string().meta({ format: "date-time", description: "ISO 8601, UTC (business time)." }),
    last_active_at: z.string().meta({
      format: "date-time",
      description: "When one of the device's live tokens was last used (ISO 8601, UTC; updated at most once a minute).",
    }),
    current: z.boolean().meta({ description: "true for the device of the bearer token making this request." }),
  })
  .meta({ id: "Device" });

export type DeviceView = z.infer<typeof DeviceSchema>;

/** The icon of a device, from its OS first (as the User-Agent parser names it, or an app sent it), then its platform. */
export function deviceIcon(os: string | null, platform: string): DeviceIcon {
  const name = (os ?? "").trim();
  // An app may send 'Mac OS X' or 'windows 11': the names the parser gives are matched loosely.
  if (/^windows\b/i.test(name)) return "windows";
  if (/^(mac ?os|ios|ipados|os x)\b/i.test(name)) return "apple";
  if (/^android\b/i.test(name)) return "android";
  if (/^(linux|chrome ?os|chromium os)\b/i.test(name) || LINUX_DISTRIBUTIONS.test(name)) return "linux";
  return platform === WEB_PLATFORM ? "browser" : "desktop";
}

type NamedFields = { platform: string; device_os: string | null; device_os_version: string | null; device_brand: string | null; device_model: string | null };

/** The device's name as the list shows it (see DeviceSchema.name). */
export function deviceName(device: NamedFields): string {
  if (device.platform === WEB_PLATFORM) {
    return browserLabel(device.device_model ?? device.device_brand, device.device_os, device.device_os_version) ?? "Web browser";
  }
  // An app's own fields: 'Dell' and 'XPS 13' make 'Dell XPS 13' (a model that already names its brand stays as sent).
  const brand = device.device_brand?.trim() || null;
  const model = device.device_model?.trim() || null;
  const what = brand && model && !model.toLowerCase().startsWith(brand.toLowerCase()) ? `${brand} ${model}` : (model ?? brand);
  return browserLabel(what, device.device_os, device.device_os_version) ?? device.platform;
}

/** 403 unless `userId` (when given) is the caller's own id. */
export function assertOwnUser(given: number | undefined, callerId: number): void {
  if (given !== undefined && given !== callerId) throw new DomainError("forbidden", DEVICE_MESSAGES.forbidden);
}

/** The user's devices that have a live token, most recent sign-in first. */
export async function listDevices(db: Database, userId: number, currentDeviceId: number): Promise<DeviceView[]> {
  const nowIso = new Date().toISOString();
  const rows = await db
    .selectFrom("devices")
    .select([
      "id",
      "platform",
      "device_os",
      "device_os_version",
      "device_model",
      "device_brand",
      "last_login_at",
      (eb) =>
        eb
          .selectFrom("tokens")
          .select((t) => t.fn.max("tokens.last_used_at").as("last_used"))
          .whereRef("tokens.device_id", "=", "devices.id")
          .where("tokens.revoked_at", "is", null)
          .as("last_active_at"),
    ])
    .where("user_id", "=", userId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("tokens")
          .select("tokens.id")
          .whereRef("tokens.device_id", "=", "devices.id")
          .where("tokens.revoked_at", "is", null)
          .where("tokens.expires_at", ">", nowIso),
      ),
    )
    .orderBy("last_login_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    name: deviceName(row),
    device_icon: deviceIcon(row.device_os, row.platform),
    device_os: row.device_os,
    device_os_version: row.device_os_version,
    device_model: row.device_model,
    device_brand: row.device_brand,
    platform: row.platform,
    last_login_at: new Date(row.last_login_at).toISOString(),
    last_active_at: new Date(row.last_active_at ?? row.last_login_at).toISOString(),
    current: Number(row.id) === currentDeviceId,
  }));
}

/** Revokes every live token of one of the user's devices; 404 for an unknown device or another user's. */
export async function terminateDevice(db: Database, userId: number, deviceId: number): Promise<number> {
  const device = await db
    .selectFrom("devices")
    .select("id")
    .where("id", "=", deviceId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!device) throw new DomainError("not_found", DEVICE_MESSAGES.notFound);
  return db.transaction().execute((trx) => revokeSessions(trx, { userId, deviceId }));
}

/**
 * 'Sign out other devices' (issue 33): every session of the user ends but the caller's own, as when a
 * password change keeps the session that made it. Each token has its own device row (issueToken), so
 * keeping the caller's token keeps its device; the other devices' SSO tokens and desktop codes, and
 * pending two-factor sign-ins, end too. Returns how many tokens were revoked.
 */
export async function terminateOtherDevices(db: Database, userId: number, currentTokenId: number): Promise<number> {
  return db.transaction().execute((trx) => revokeSessions(trx, { userId, all: true, keepTokenId: currentTokenId }));
}
