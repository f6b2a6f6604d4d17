import type { PasskeyListItem } from "./passkeys";

// Placeholder: the passkeys helper replaces this file with the real loader.
export async function loadPasskeys(_request: Request): Promise<PasskeyListItem[]> {
  return [];
}
