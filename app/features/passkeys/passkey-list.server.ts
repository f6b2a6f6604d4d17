import dayjs from "dayjs";
import utc from "dayjs/plugin/utc.js";
import { formatLongDate } from "~/utils/dates";
import type { PasskeyListItem } from "./passkey-list";

dayjs.extend(utc);

/**
 * A passkey as the lists show it (the security page, the page after a password reset), its dates
 * already written out: createdAt as 'DD MMMM, Y', lastUsedAt as a device time ('2026-11-21 14:05',
 * UTC) or null when it never signed in.
 */
export function passkeyListItem(passkey: { id: number; name: string; created_at: string; last_used_at: string | null }): PasskeyListItem {
  return {
    id: String(passkey.id),
    name: passkey.name,
    createdAt: formatLongDate(passkey.created_at),
    lastUsedAt: passkey.last_used_at ? dayjs.utc(passkey.last_used_at).format("YYYY-MM-DD HH:mm") : null,
  };
}
