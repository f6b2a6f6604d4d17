import type { AppLoadContext } from "@remix-run/node";
import { createApiClient } from "../utils/api.server";
import { languageOf } from "./i18n.server";
import { languageCookie } from "./language-cookie.server";
import { isLanguage, type Language, languageOfCookieHeader } from "./languages";

// The account's saved language and the browser's (issue 36, docs/decisions/065). The account's comes
// first: signing in brings it to this browser as the `lang` cookie, so that no page needs an API call to
// know it. An account that has none yet (null) takes the page's, which its emails then use.

/**
 * The `lang` cookie to set as `token` signs in (null when none is needed), given what the sign-in answered
 * of the account (`user`), else asked of the API. A failure here never fails the sign-in.
 */
export async function languageOnSignIn(
  request: Request,
  context: Pick<AppLoadContext, "clientIp" | "requestId">,
  token: string,
  user?: { language?: Language | null } | null,
): Promise<string | null> {
  try {
    const api = createApiClient(request, context, token);
    let saved = user?.language;
    if (saved === undefined) {
      const me = await api.get("/api/me");
      if (!me.ok) return null;
      saved = me.data.language;
    }
    if (isLanguage(saved)) return languageOfCookieHeader(request.headers.get("Cookie")) === saved ? null : languageCookie(saved);
    await api.put("/api/account/language", { body: { language: languageOf(request) } });
    return null;
  } catch {
    return null;
  }
}

/** The footer's choice, for a signed-in customer: the account keeps it, so that its emails use it. */
export async function saveAccountLanguage(
  request: Request,
  context: Pick<AppLoadContext, "clientIp" | "requestId">,
  token: string,
  language: Language,
): Promise<boolean> {
  const saved = await createApiClient(request, context, token).put("/api/account/language", { body: { language } });
  return saved.ok;
}
