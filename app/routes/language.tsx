import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { z } from "zod";
import { saveAccountLanguage } from "~/i18n/account-language.server";
import { languageCookie } from "~/i18n/language-cookie.server";
import { LANGUAGES } from "~/i18n/languages";
import { readFormData } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { getSessionToken } from "~/utils/session.server";

// The footer's 'Language' form (components/site-footer.tsx): a plain post, so it works without
// JavaScript; the page comes back in the chosen language. Signed in, the account keeps it too, so
// that its emails use it (docs/decisions/065).

const LanguageChoice = z.object({
  language: z.enum(LANGUAGES),
  returnTo: z.string().max(2048).optional(),
});

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const choice = LanguageChoice.safeParse(Object.fromEntries(formData));
  const back = safeRedirect(formData.get("returnTo"));
  // Nothing to change: an unknown language is not a choice (the select offers only ours).
  if (!choice.success) return redirect(back);
  const { language } = choice.data;
  const token = await getSessionToken(request);
  // The page follows the cookie at once; the account's emails follow once it is saved. A save that
  // fails (the API away) leaves the account as it was and the browser in the chosen language.
  if (token) await saveAccountLanguage(request, context, token, language).catch(() => false);
  return redirect(back, { headers: { "Set-Cookie": languageCookie(language) } });
}

export async function loader() {
  return redirect("/");
}
