import type { Request } from "express";
import type { EventSource } from "../identity/security-events";
import type { SignInDevice } from "../identity/sessions";
import { describedDeviceKey, noteSignIn, parseDeviceKey } from "../identity/sign-in-alerts";
import { clientHintsOf } from "../identity/user-agent";
import type { PlatformServices } from "../platform/services";

/*
 * What the HTTP layer adds to the security events (issue 22, docs/decisions/035): who and where from.
 * The portal forwards the browser's User-Agent, its client hints (Sec-CH-UA-*, issue 33) and address
 * (X-Forwarded-For, trusted from loopback) and,
 * at sign-in, its device cookie in X-Device-Key; an app sends its device id in the same header.
 */

export const DEVICE_KEY_HEADER = "x-device-key";

/** The request's User-Agent, client hints and client address (shortened when stored). */
export function eventSource(req: Request): EventSource {
  return { userAgent: req.headers["user-agent"] ?? null, clientHints: clientHintsOf(req.headers), ip: req.ip ?? null };
}

/**
 * The end of every successful sign-in: 'Signed in', and the alert for a browser or app new to the
 * account, known by the device id it sent or else by the device it described.
 */
export function afterSignIn(
  ctx: Pick<PlatformServices, "db" | "config" | "clock" | "mail" | "logger">,
  req: Request,
  user: { id: number; email: string; sign_in_alerts: number },
  device: SignInDevice,
): Promise<boolean> {
  const deviceKey = parseDeviceKey(req.headers[DEVICE_KEY_HEADER]) ?? describedDeviceKey(device);
  return noteSignIn(ctx, { ...eventSource(req), user, deviceKey });
}
