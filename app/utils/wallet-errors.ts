// Google Pay, Apple Pay and express checkout messages (commerce §8), and which cause shows which.
// Pure: no server-only or browser-only imports, so the server (the wallet resource route) and the
// browser (the wallet panels, /demo) share it. The messages are catalogue keys (app/locales/<language>/
// payments.json, their English the spec's words): whoever shows one translates it with `t`, and a server's
// message (already in the page's language) passes through `t` as it is.

export type Wallet = "googlepay" | "applepay";

export const WALLET_NAMES: Record<Wallet, string> = { googlepay: "Google Pay", applepay: "Apple Pay" };

/** commerce §8, Google Pay; and the checkout's 'Google Pay transaction failed. Please try again.' */
export const GOOGLE_PAY_MESSAGES = {
  cancelled: "payments.wallet.google.cancelled",
  network: "payments.wallet.google.network",
  notAuthorized: "payments.wallet.google.notAuthorized",
  declined: "payments.wallet.google.declined",
  unavailable: "payments.wallet.google.unavailable",
  generic: "payments.wallet.google.generic",
  failed: "payments.wallet.google.failed",
  invalidEmail: "payments.wallet.google.invalidEmail",
} as const;

/**
 * commerce §8, Apple Pay. The spec gives Apple no own network, not-authorized or declined wording:
 * a refused payment is the checkout's 'Apple Pay transaction failed. Please try again.', and the
 * generic fallback mirrors Google's ('Unable to complete your … transaction right now.').
 */
export const APPLE_PAY_MESSAGES = {
  cancelled: "payments.wallet.apple.cancelled",
  android: "payments.wallet.apple.android",
  unavailable: "payments.wallet.apple.unavailable",
  failed: "payments.wallet.apple.failed",
  generic: "payments.wallet.apple.generic",
} as const;

/** commerce §8, wallet load: why Apple Pay could not be offered at all. */
export const APPLE_PAY_LOAD_MESSAGES = {
  noActiveCard: "payments.wallet.appleLoad.noActiveCard",
  unsupportedBrowser: "payments.wallet.appleLoad.unsupportedBrowser",
  notSetUp: "payments.wallet.appleLoad.notSetUp",
  default: "payments.wallet.appleLoad.default",
} as const;

/** commerce §8, express checkout (the /demo page). */
export const EXPRESS_CHECKOUT_MESSAGES = {
  invalidDetails: "payments.express.invalidDetails",
  paymentMethod: "payments.express.paymentMethod",
  generic: "payments.express.generic",
} as const;

/** commerce §8 (pricing): the fallback of a failed wallet payment or Apple merchant validation without a server message. */
export const WALLET_REQUEST_FALLBACK = "payments.wallet.requestFailed";

/** commerce §7, the Apple Pay charge call: no parsed error body, or no answer at all. */
export const APPLE_CHARGE_MESSAGES = { failed: "payments.wallet.appleCharge.failed", network: "payments.error.network" } as const;

/** What went wrong with a wallet payment, in the spec's categories. */
export type WalletFailure = "cancelled" | "network" | "not_authorized" | "declined" | "unavailable" | "android" | "refused" | "generic";

/** What was observed. */
export type WalletCause =
  /** The buyer closed the wallet sheet. */
  | { type: "cancelled" }
  /** The wallet cannot be offered here (android: the device is Android, for Apple Pay). */
  | { type: "unavailable"; android?: boolean }
  /** The payment post answered with an error: its HTTP status (0: no answer) and the server's message. */
  | { type: "answer"; status: number; message?: string }
  /** The browser threw (fetch failed, aborted, or anything unexpected). */
  | { type: "thrown"; error: unknown }
  /** The wallet's card could not become a payment method (Stripe.js or the sandbox tokenizer refused it). */
  | { type: "gateway"; error: { type?: string; code?: string; message?: string } | null | undefined };

function isNetworkError(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error ?? "");
  return /network|failed to fetch|load failed|offline/i.test(text);
}

function isAbort(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/** The category of a cause. */
function walletFailure(cause: WalletCause): WalletFailure {
  switch (cause.type) {
    case "cancelled":
      return "cancelled";
    case "unavailable":
      return cause.android ? "android" : "unavailable";
    case "answer":
      if (cause.status === 0) return "network";
      if (cause.status === 402) return "declined";
      if (cause.status >= 500 || cause.status === 429 || cause.status === 408) return "generic";
      return "refused";
    case "thrown":
      if (isAbort(cause.error)) return "cancelled";
      return isNetworkError(cause.error) ? "network" : "generic";
    case "gateway": {
      const kind = cause.error?.type ?? "";
      if (kind === "api_connection_error") return "network";
      // The card the wallet holds was refused before any charge (expired, unsupported, incomplete).
      if (kind === "card_error" || kind === "validation_error") return "not_authorized";
      return "generic";
    }
  }
}

/**
 * The message a wallet failure shows. `refused` (a 4xx other than a decline: 'This is already your
 * current plan.', a coupon's reason) shows the server's message when there is one, else the checkout's
 * 'X Pay transaction failed. Please try again.'.
 */
export function walletMessage(wallet: Wallet, failure: WalletFailure, serverMessage?: string): string {
  if (wallet === "googlepay") {
    const m = GOOGLE_PAY_MESSAGES;
    switch (failure) {
      case "cancelled":
        return m.cancelled;
      case "network":
        return m.network;
      case "not_authorized":
        return m.notAuthorized;
      case "declined":
        return m.declined;
      case "unavailable":
      case "android":
        return m.unavailable;
      case "refused":
        return serverMessage?.trim() || m.failed;
      case "generic":
        return m.generic;
    }
  }
  const m = APPLE_PAY_MESSAGES;
  switch (failure) {
    case "cancelled":
      return m.cancelled;
    case "android":
      return m.android;
    case "unavailable":
      return m.unavailable;
    case "declined":
    case "not_authorized":
      return m.failed;
    case "refused":
      return serverMessage?.trim() || m.failed;
    case "network":
    case "generic":
      return m.generic;
  }
}

/** Cancelling is information, not an error (commerce §4: 'Wallet cancel shows an info toast'). */
function walletTone(failure: WalletFailure): "info" | "error" {
  return failure === "cancelled" || failure === "unavailable" || failure === "android" ? "info" : "error";
}

/** Cause → {message, tone}, in one call. */
export function describeWalletFailure(wallet: Wallet, cause: WalletCause): { message: string; tone: "info" | "error"; failure: WalletFailure } {
  const failure = walletFailure(cause);
  const serverMessage = cause.type === "answer" ? cause.message : undefined;
  return { failure, message: walletMessage(wallet, failure, serverMessage), tone: walletTone(failure) };
}

/**
 * The notice that replaces the Apple Pay button when Apple Pay is not offered (commerce §2, §8).
 * `deviceOs` is the API's reading of this browser (the payment config's `device.os`): the browser
 * never parses its own User-Agent, so that one parser, in the API, names every device.
 */
export function appleUnavailableMessage(deviceOs: string | null): string {
  return deviceOs === "Android" ? APPLE_PAY_MESSAGES.android : APPLE_PAY_MESSAGES.unavailable;
}

export type AppleLoadFailure = "no_active_card" | "unsupported_browser" | "not_set_up" | "unknown";

/**
 * Why Apple Pay failed to load, from what the browser reports: no ApplePaySession at all (another
 * browser), canMakePayments() false (no wallet on this device), canMakePaymentsWithActiveCard() false
 * (a wallet without a card for this merchant).
 */
export function appleLoadFailure(env: { applePaySession: boolean; canMakePayments?: boolean; activeCard?: boolean }): AppleLoadFailure {
  if (!env.applePaySession) return "unsupported_browser";
  if (env.canMakePayments === false) return "not_set_up";
  if (env.activeCard === false) return "no_active_card";
  return "unknown";
}

export function appleLoadMessage(failure: AppleLoadFailure): string {
  switch (failure) {
    case "no_active_card":
      return APPLE_PAY_LOAD_MESSAGES.noActiveCard;
    case "unsupported_browser":
      return APPLE_PAY_LOAD_MESSAGES.unsupportedBrowser;
    case "not_set_up":
      return APPLE_PAY_LOAD_MESSAGES.notSetUp;
    case "unknown":
      return APPLE_PAY_LOAD_MESSAGES.default;
  }
}

/** Express checkout (/demo): the wallet's details were refused (elements.submit), no payment method, or anything else. */
export type ExpressFailure = "invalid_details" | "payment_method" | "other";

export function expressCheckoutMessage(failure: ExpressFailure): string {
  switch (failure) {
    case "invalid_details":
      return EXPRESS_CHECKOUT_MESSAGES.invalidDetails;
    case "payment_method":
      return EXPRESS_CHECKOUT_MESSAGES.paymentMethod;
    case "other":
      return EXPRESS_CHECKOUT_MESSAGES.generic;
  }
}

/** The server's message as the spec reads error bodies: errors.message, error.message, then message. */
function errorBodyMessage(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as { errors?: { message?: unknown }; error?: { message?: unknown }; message?: unknown };
  for (const candidate of [b.errors?.message, b.error?.message, b.message]) {
    if (typeof candidate === "string" && candidate.trim()) return candidate;
  }
  return undefined;
}

/** A failed wallet request (payment or merchant validation) as the pricing store reports it: the server's message, else the fallback. */
export function walletRequestMessage(body: unknown): string {
  return errorBodyMessage(body) ?? WALLET_REQUEST_FALLBACK;
}

/** commerce §7, the Apple Pay charge: the parsed error body's message, else 'Apple Pay charge failed'; no answer: 'Network error'. */
export function appleChargeMessage(answer: { network: true } | { network?: false; body: unknown }): string {
  if (answer.network) return APPLE_CHARGE_MESSAGES.network;
  return errorBodyMessage(answer.body) ?? APPLE_CHARGE_MESSAGES.failed;
}
