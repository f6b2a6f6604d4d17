import dayjs from "dayjs";
import utc from "dayjs/plugin/utc.js";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { formatLongDate } from "~/utils/dates.server";
import type { PasskeyListItem } from "./passkeys";

dayjs.extend(utc);

/**
 * The account's passkeys for the security page, newest first, with their dates already written out:
 * createdAt as 'DD MMMM, Y', lastUsedAt as a device time ('2026-11-21 14:05', UTC) or null.
 */
export async function loadPasskeys(request: Request): Promise<PasskeyListItem[]> {
  const token = await requireToken(request);
  const result = await createApiClient(request, { clientIp: "" }, token).get("/api/account/passkeys");
  if (!result.ok) throw serviceUnavailable();
  return result.data.map((passkey) => ({
    id: String(passkey.id),
    name: passkey.name,
    createdAt: formatLongDate(passkey.created_at),
    lastUsedAt: passkey.last_used_at ? dayjs.utc(passkey.last_used_at).format("YYYY-MM-DD HH:mm") : null,
  }));
}
