import crypto from "node:crypto";
import type { AuthMethod } from "./providers.server";

/** What a provider sign-in yields, before the API is asked to sign in, create or link. */
export type SocialProfile = { authMethod: AuthMethod; idToken: string; email: string; name: string };

export function randomToken(bytes = 24) {
  return crypto.randomBytes(bytes).toString("base64url");
}

/** identity §3: with no display name, the name is the part of the email before the @. */
export function displayName(name: string | null | undefined, email: string) {
  return name?.trim() || email.split("@")[0] || email;
}

/** A sign-in failure with a message fit for the person (identity §8's provider error mapping): a catalogue key, translated where it is shown. */
export class IdentityError extends Error {
  static fromProvider(code: string) {
    const messages: Record<string, string> = {
      access_denied: "auth.social.cancelled",
      user_cancelled_authorize: "auth.social.cancelled",
      login_required: "auth.social.loginRequired",
      consent_required: "auth.social.consentRequired",
      invalid_client: "auth.social.misconfigured",
      temporarily_unavailable: "auth.social.busy",
    };
    return new IdentityError(messages[code] ?? "auth.error.loginFailed");
  }
}
