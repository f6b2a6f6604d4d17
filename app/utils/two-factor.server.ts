import type { AppLoadContext } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { createApiClient } from "./api.server";
import { writeFlows, type Flows, type TwoFactorFlow } from "./flow.server";
import { desktopHandoffCookie } from "./identity/desktop.server";
import { safeRedirect } from "./safe-redirect";
import { commitTokenSession } from "./session.server";
import { appendDeviceCookie } from "./device-cookie.server";
import { redirectWithSuccess } from "./toast.server";
import { languageOnSignIn } from "../i18n/account-language.server";

const TWO_FACTOR_PATH = "/login/two-factor";

/** A sign-in answer of the API: the token, or a two-factor challenge instead. */
export type SignInAnswer = { token: string } | { two_factor_required: true; challenge: string };

export function needsSecondFactor(answer: SignInAnswer): answer is { two_factor_required: true; challenge: string } {
  return "two_factor_required" in answer && answer.two_factor_required === true;
}

/**
 * Continues a sign-in that the API answered with a challenge: the challenge goes into the signed,
 * httpOnly flow cookie (never into the page) and the browser to the 'Two-factor authentication' step.
 */
export async function redirectToSecondFactor(
  request: Request,
  challenge: string,
  rest: Omit<TwoFactorFlow, "challenge" | "startedAt"> = {},
  headers = new Headers(),
  /** Other flows to end in the same cookie (the code sign-in's). */
  clear: Array<keyof Flows> = [],
) {
  const changes: Partial<Flows> = Object.fromEntries(clear.map((key) => [key, undefined]));
  changes.twoFactor = { challenge, startedAt: Date.now(), ...rest };
  headers.append("Set-Cookie", await writeFlows(request, changes));
  return redirect(TWO_FACTOR_PATH, { headers });
}

/**
 * The end of a sign-in, with or without a second factor: the session cookie exactly as a normal
 * sign-in commits it, or for a desktop sign-in the hand-off to the app.
 */
export async function completeSignIn(
  request: Request,
  context: AppLoadContext,
  token: string,
  flow: Pick<TwoFactorFlow, "oldurl" | "success" | "desktop">,
  headers = new Headers(),
) {
  if (flow.desktop) {
    const code = await createApiClient(request, context, token).post("/api/auth/desktop-code/issue");
    headers.append(
      "Set-Cookie",
      await desktopHandoffCookie().serialize({ token, code: code.ok ? code.data.code : null, provider: flow.desktop.provider }),
    );
    appendDeviceCookie(headers, request);
    return redirectWithSuccess("/desktop-app/handoff", flow.success ?? "auth.signedIn", { headers });
  }
  headers.append("Set-Cookie", await commitTokenSession(request, token));
  // The account's language comes with it (or the account takes the page's): issue 36.
  const languageSet = await languageOnSignIn(request, context, token);
  if (languageSet) headers.append("Set-Cookie", languageSet);
  appendDeviceCookie(headers, request);
  const target = safeRedirect(flow.oldurl);
  return flow.success ? redirectWithSuccess(target, flow.success, { headers }) : redirect(target, { headers });
}
