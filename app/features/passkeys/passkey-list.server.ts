import dayjs from "dayjs";
import utc from "dayjs/plugin/utc.js";
import type { PasskeyListItem } from "./passkey-list";

dayjs.extend(utc);

/**
 * A passkey as the lists show it (the security page, the page after a password reset): createdAt as
 * the API gave it (the list writes it out in the page's language), lastUsedAt as a device time
 * ('2026-11-21 14:05', UTC) or null when it never signed in.
 */
export function passkeyListItem(passkey: { id: number; name: string; created_at: string; last_used_at: string | null }): PasskeyListItem {
  return {
    id: String(passkey.id),
    name: passkey.name,
    createdAt: passkey.created_at,
    lastUsedAt: passkey.last_used_at ? dayjs.utc(passkey.last_used_at).format("YYYY-MM-DD HH:mm") : null,
  };
}
