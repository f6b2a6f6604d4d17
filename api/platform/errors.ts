// The error every layer throws for an answer the client must see: a code that says what happened (the
// client branches on it), the message shown to the person, and the field(s) it belongs to. No status:
// the HTTP layer maps the code to one (api/http/error-status.ts) and writes the error envelope.
// The message is English; a message with variables carries its Text (key and variables) too, so that the
// envelope can write it in the request's language (api/platform/i18n.ts, docs/decisions/064).

import { DEFAULT_LANGUAGE, type Text, render } from "./i18n";

/** What went wrong, one code per failure a client may need to tell apart (docs/decisions/023). */
export const ERROR_CODES = [
  // The request itself
  "validation_failed",
  "malformed_body",
  "body_too_large",
  "unsupported_media_type",
  "request_rejected",
  "method_not_allowed",
  "not_found",
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "server_error",
  "database_unavailable",
  "not_implemented",
  // Accounts, codes and links
  "invalid_credentials",
  "email_taken",
  "email_mismatch",
  "password_already_set",
  "wrong_password",
  "code_invalid",
  "code_expired",
  "too_many_attempts",
  "mail_unavailable",
  "link_invalid",
  "sso_token_invalid",
  "not_desktop",
  // Google and Apple
  "provider_off",
  "provider_unavailable",
  "provider_sign_in_failed",
  "provider_token_rejected",
  "provider_email_unverified",
  "password_sign_in_required",
  "id_token_replayed",
  "link_taken",
  "already_connected",
  "last_sign_in_method",
  // Two-factor authentication
  "two_factor_already_on",
  "two_factor_not_set_up",
  "two_factor_off",
  "challenge_ended",
  // Passkeys
  "passkey_rejected",
  "passkey_request_ended",
  "confirmation_required",
  // Payments
  "plan_already_current",
  "subscription_exists",
  "plan_change_invalid",
  "payment_past_due",
  "plan_change_in_progress",
  "coupon_invalid",
  "card_declined",
  "paypal_declined",
  "card_needs_authentication",
  "authentication_failed",
  "card_unusable",
  "card_details_rejected",
  "default_card_not_deletable",
  "subscription_not_card",
  "setup_incomplete",
  "gateway_failed",
  "amount_mismatch",
  "currency_unsupported",
  "wallet_domain_unregistered",
  "idempotency_key_reused",
  "idempotency_key_conflict",
  "payment_in_progress",
  "signature_invalid",
  "notification_forged",
  "invoice_paid",
  "not_renewable",
  // Billing
  "auto_renewal_unavailable",
  "auto_renewal_too_late",
  "subscription_ended",
  "refund_already_used",
  "refund_guarantee_used",
  "refund_not_eligible",
  "refund_window_closed",
  // Manual setup (WireGuard configurations, service credentials)
  "plan_required",
  "configuration_limit",
  "public_key_taken",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The failures that are ours or a provider's, not the request's: the request may succeed when sent
 * again. Payments store and replay every other refusal under its idempotency key, never these.
 */
export const FAILURE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "server_error",
  "database_unavailable",
  "not_implemented",
  "mail_unavailable",
  "provider_unavailable",
  "gateway_failed",
]);

export type FieldErrors = Record<string, string[]>;

export interface DomainErrorOptions {
  /** The one field the message belongs to (its per-field messages are then just the message). */
  field?: string;
  /** Per-field messages, when there are several (or they differ from the message). */
  fields?: FieldErrors;
  /** Headers of the answer, such as Retry-After. */
  headers?: Record<string, string>;
  /**
   * The message's key and variables beside its English (given as a string), for the other languages: the
   * English stays exactly as given (docs/decisions/064).
   */
  text?: Text;
}

export class DomainError extends Error {
  readonly fields: FieldErrors | undefined;
  readonly headers: Record<string, string> | undefined;
  /** The message's key and variables, when it was given as a Text (its `message` is then the English). */
  readonly text: Text | undefined;

  constructor(
    readonly code: ErrorCode,
    messageOrText: string | Text,
    options: DomainErrorOptions = {},
  ) {
    const message = typeof messageOrText === "string" ? messageOrText : render(DEFAULT_LANGUAGE, messageOrText);
    super(message);
    this.text = typeof messageOrText === "string" ? options.text : messageOrText;
    this.name = "DomainError";
    this.fields = options.fields ?? (options.field === undefined ? undefined : { [options.field]: [message] });
    this.headers = options.headers;
  }
}

/** A refusal that is the request's fault (stored and replayed for an idempotency key), not a failure. */
export function isRefusal(error: unknown): error is DomainError {
  return error instanceof DomainError && !FAILURE_CODES.has(error.code);
}

/** A code read back from storage (a stored payment answer): one of ours, or undefined. */
export function asErrorCode(value: unknown): ErrorCode | undefined {
  return (ERROR_CODES as readonly unknown[]).includes(value) ? (value as ErrorCode) : undefined;
}
