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

/** A sign-in failure with a message fit for the person (identity §8's provider error mapping). */
export class IdentityError extends Error {
  static fromProvider(code: string) {
    const messages: Record<string, string> = {
      access_denied: "Sign-in was cancelled.",
      user_cancelled_authorize: "Sign-in was cancelled.",
      login_required: "Please sign in with the provider to continue.",
      consent_required: "Please allow access to continue.",
      invalid_client: "Sign-in with this provider is misconfigured. Please use another way to sign in.",
      temporarily_unavailable: "The provider is busy. Please try again in a moment.",
    };
    return new IdentityError(messages[code] ?? "Login failed");
  }
}
