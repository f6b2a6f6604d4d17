import { createCookieSessionStorage } from "@remix-run/node";
import { createSealedCookie, portalCookieName } from "./cookies.server";
import { portalConfig } from "../config.server";

// Multi-step flows keep their state on the server side of a sealed (encrypted and authenticated),
// httpOnly cookie (DESIGN §3): refresh, back and a second tab all see the same step. It holds
// secrets (recovery codes, the second-factor challenge, the reset token, verified codes), so its
// content is unreadable, and it is a session cookie: the hour it is good for is checked by the
// server, from inside the sealed value (docs/decisions/018-flow-cookies-and-caching.md).

/** How long a flow's state is good for after its last change. */
const FLOW_TTL_SECONDS = 60 * 60;

export const RESEND_SECONDS = 30;
export const CODE_TTL_SECONDS = 300;

type SignupFlow = {
  email: string;
  agreeTerms: boolean;
  agreeMarketing: boolean;
  sentAt: number;
  /** The verified code; registration presents it once more. */
  code?: string;
};
type CodeFlow = { email: string; sentAt: number };
/**
 * The password reset: the email and its code, then the reset token; after the reset, when the account
 * has passkeys, the API's review token that lists and removes them (issue 30).
 */
type ResetFlow = CodeFlow & { resetToken?: string; passkeyReview?: string };

/** The checkout of one plan: the visitor's verification, the coupon, and the payment's success. */
export type CheckoutFlow = {
  planId: number;
  email?: string;
  sentAt?: number;
  /** The verified code; the password step presents it once more. */
  code?: string;
  /**
   * The code last sent, kept when the visitor goes back to the email step ('Use another email', Escape):
   * the email field shows that address again, and entering it again returns to that code while it is
   * valid, instead of asking for a new one the resend wait would refuse (issue 33).
   */
  lastSent?: { email: string; sentAt: number };
  coupon?: string;
  /**
   * The country the customer chose in the order summary (issue 35): the quotes are taxed for it, and it
   * becomes the account's billing country when the customer pays (a visitor's, when the account is made).
   */
  country?: string;
  /**
   * What the visitor had typed as their email, not yet sent, when 'Update' posted the country without
   * JavaScript (both are in the email form then): the email field shows it again.
   */
  typedEmail?: string;
  /** When the payment went through (ms): 'Payment Successful!' and its countdown. */
  paidAt?: number;
  /**
   * The Checkout Session of the hosted payment page the browser was sent to, until the page knows how it
   * ended: a return whose answer never reached the browser, or that the API could not answer then, is
   * asked again on the next load, so a paid plan shows its receipt (review issue 30).
   */
  hostedSession?: string;
};

/**
 * A sign-in waiting for its second factor (docs/decisions/017): the API's challenge id (never in the
 * page), where to go afterwards, and for a desktop sign-in the provider to hand the token to the app.
 */
export type TwoFactorFlow = {
  challenge: string;
  oldurl?: string;
  /** The flash message of the sign-in that started it ('Signed in with Google.'). */
  success?: string;
  desktop?: { provider: "google" | "apple" };
  startedAt: number;
};

/**
 * Cancel without signing in (/cancel, docs/decisions/038): the email and when its code was sent, then the
 * API's cancel proof (it can only turn that account's auto-renewal off, for 15 minutes), then what was done.
 */
export type CancelFlow = CodeFlow & {
  proof?: string;
  done?: { title: string; endsOn: string; turnedOffAt: string };
};

/**
 * The change-email dialog (issue 22): the start step ('New email' and the password, or for an account
 * without one the code sent to its current address at `authSentAt`), then the code sent to the new address.
 */
export type EmailChangeFlow = { step: "start"; authSentAt?: number } | { step: "code"; email: string; sentAt: number };

/**
 * 'Add a passkey' on the security page (issue 30): the name, once the API confirmed the session with
 * the password (or emailed code) and second factor; the browser's prompt follows (JavaScript).
 */
export type PasskeyAddFlow = { name: string; confirmedAt: number };

export type Flows = {
  twoFactor?: TwoFactorFlow;
  /** The recovery codes of a 'Turn on', until the page that shows them has been rendered once. */
  recoveryCodes?: string[];
  checkout?: CheckoutFlow;
  signup?: SignupFlow;
  loginCode?: CodeFlow;
  reset?: ResetFlow;
  change?: ResetFlow;
  emailChange?: EmailChangeFlow;
  cancel?: CancelFlow;
  passkeyAdd?: PasskeyAddFlow;
};

let storage: ReturnType<typeof createStorage> | undefined;

function createStorage() {
  const env = portalConfig();
  return createCookieSessionStorage<Flows>({
    cookie: createSealedCookie(portalCookieName("__flow", env.secureCookies), {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: env.secureCookies,
      secrets: env.sessionSecrets,
      ttlSeconds: FLOW_TTL_SECONDS,
    }),
  });
}

function flowStorage() {
  storage ??= createStorage();
  return storage;
}

export async function readFlow<K extends keyof Flows>(request: Request, key: K): Promise<Flows[K] | undefined> {
  const session = await flowStorage().getSession(request.headers.get("Cookie"));
  return session.get(key) as Flows[K] | undefined;
}

/** Set-Cookie that stores (or, with undefined, clears) one flow's state. */
export async function writeFlow<K extends keyof Flows>(request: Request, key: K, value: Flows[K] | undefined): Promise<string> {
  const session = await flowStorage().getSession(request.headers.get("Cookie"));
  if (value === undefined) session.unset(key);
  else session.set(key, value as never);
  return flowStorage().commitSession(session);
}

/** One Set-Cookie for several flows at once (a second writeFlow in one response would undo the first). */
export async function writeFlows(request: Request, changes: { [K in keyof Flows]?: Flows[K] | undefined }): Promise<string> {
  const session = await flowStorage().getSession(request.headers.get("Cookie"));
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) session.unset(key as keyof Flows);
    else session.set(key as keyof Flows, value as never);
  }
  return flowStorage().commitSession(session);
}

/** Seconds left of a countdown that started at `sentAt` (ms) and lasts `total` seconds. */
export function secondsLeft(sentAt: number, total: number, now = Date.now()): number {
  return Math.max(0, Math.ceil((sentAt + total * 1000 - now) / 1000));
}
