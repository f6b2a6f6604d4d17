import type { ErrorCode } from "../platform/errors";

/*
 * The one place that turns a domain error's code into an HTTP status (docs/decisions/023). A code
 * missing here does not compile; tests/unit/error-codes.test.ts checks the rest at run time.
 */

export interface ErrorCodeAnswer {
  status: number;
  /** For the OpenAPI document: when the code is answered. */
  description: string;
}

export const ERROR_STATUS: Record<ErrorCode, ErrorCodeAnswer> = {
  validation_failed: { status: 422, description: "A field is missing or invalid (errors.fields)" },
  malformed_body: { status: 400, description: "The body is not valid JSON, was cut off, or names nothing" },
  body_too_large: { status: 413, description: "The body is over 64 kB" },
  unsupported_media_type: { status: 415, description: "A body that is neither JSON nor form data, or in another encoding" },
  request_rejected: { status: 400, description: "Another request error (its status as the server gave it)" },
  method_not_allowed: { status: 405, description: "The path does not take this method (Allow lists those it does)" },
  not_found: { status: 404, description: "No such path, or nothing of yours with this id" },
  unauthenticated: { status: 401, description: "No valid bearer token (or admin token)" },
  forbidden: { status: 403, description: "Not yours to act on" },
  rate_limited: { status: 429, description: "Too many requests; Retry-After says when to try again" },
  server_error: { status: 500, description: "Something went wrong on our side" },
  database_unavailable: { status: 503, description: "The database does not answer" },
  not_implemented: { status: 501, description: "Not available in this mode" },
  invalid_credentials: { status: 401, description: "Wrong email or password (service credentials: wrong username or password, or no plan)" },
  email_taken: { status: 409, description: "An account with this email exists" },
  email_mismatch: { status: 422, description: "The email is not the signed-in account's" },
  password_already_set: { status: 409, description: "The account already has a password" },
  wrong_password: { status: 422, description: "The account's password is not this one" },
  code_invalid: { status: 422, description: "The code is wrong" },
  code_expired: { status: 422, description: "The code expired, was used, or was never sent" },
  too_many_attempts: { status: 422, description: "The code was guessed wrong too often; a new one is needed" },
  mail_unavailable: { status: 502, description: "The mail server did not take the email" },
  link_invalid: { status: 422, description: "The emailed link is invalid, used or expired" },
  sso_token_invalid: { status: 401, description: "The single sign-on token is invalid, used or expired" },
  not_desktop: { status: 403, description: "Only a desktop app's session may do this" },
  provider_off: { status: 404, description: "This sign-in or payment provider is off" },
  provider_unavailable: { status: 503, description: "The identity provider cannot be reached" },
  provider_sign_in_failed: { status: 401, description: "The provider's ID token is not valid for this email" },
  provider_token_rejected: { status: 422, description: "The provider's ID token cannot connect this account" },
  provider_email_unverified: { status: 401, description: "The provider does not assert that the email is verified" },
  password_sign_in_required: { status: 403, description: "The email has an account: sign in with its password, then connect" },
  id_token_replayed: { status: 409, description: "This ID token was used before" },
  link_taken: { status: 409, description: "The provider account is connected to another account" },
  already_connected: { status: 409, description: "The provider is already connected" },
  last_sign_in_method: { status: 409, description: "The only way left to sign in cannot be removed" },
  two_factor_already_on: { status: 409, description: "Two-factor authentication is already on" },
  two_factor_not_set_up: { status: 409, description: "Two-factor setup was not started or must start again" },
  two_factor_off: { status: 409, description: "Two-factor authentication is not on" },
  challenge_ended: { status: 422, description: "The two-factor sign-in ended; sign in again" },
  passkey_rejected: { status: 401, description: "The passkey is not registered, or its answer does not verify" },
  passkey_request_ended: { status: 422, description: "The passkey request (its challenge) expired or was used; ask for new options" },
  confirmation_required: { status: 403, description: "Confirm the password (or emailed code), and the second factor when two-factor is on, first" },
  plan_already_current: { status: 409, description: "The plan is the account's current one" },
  subscription_exists: { status: 409, description: "The account already has a recurring subscription: change its plan instead" },
  plan_change_invalid: { status: 409, description: "The plan change is not possible (no recurring subscription, same plan, nothing pending)" },
  payment_past_due: { status: 409, description: "The subscription's renewal is unpaid: the open invoice is paid first (/billing/pay)" },
  plan_change_in_progress: { status: 409, description: "Another change of the plan (or a purchase) is still being processed for this account" },
  coupon_invalid: { status: 422, description: "The coupon does not apply" },
  card_declined: { status: 402, description: "The card was declined" },
  paypal_declined: { status: 402, description: "PayPal declined the payment" },
  card_needs_authentication: { status: 402, description: "The card needs the bank's authentication" },
  authentication_failed: { status: 402, description: "The bank's authentication (3-D Secure) failed or was abandoned; nothing was charged" },
  card_unusable: { status: 422, description: "The card cannot be used" },
  card_details_rejected: { status: 422, description: "The card's new details were refused" },
  default_card_not_deletable: { status: 409, description: "The default card cannot be deleted" },
  subscription_not_card: { status: 409, description: "The subscription is not paid by card" },
  setup_incomplete: { status: 409, description: "The card setup is not complete" },
  gateway_failed: { status: 502, description: "The payment gateway failed or did not answer" },
  amount_mismatch: { status: 422, description: "The amount is not the plan's price" },
  currency_unsupported: { status: 422, description: "The currency is not the plan's" },
  wallet_domain_unregistered: { status: 422, description: "The wallet domain is not registered" },
  idempotency_key_reused: { status: 422, description: "The idempotency key was used with other details" },
  idempotency_key_conflict: { status: 400, description: "The Idempotency-Key header and the body's idempotency_key differ" },
  payment_in_progress: { status: 409, description: "The payment with this key is still being processed" },
  signature_invalid: { status: 400, description: "The webhook's signature is not valid" },
  notification_forged: { status: 403, description: "The notification's secret is wrong" },
  invoice_paid: { status: 409, description: "The invoice is already paid" },
  not_renewable: { status: 409, description: "The subscription is not renewed by crypto invoice" },
  auto_renewal_unavailable: { status: 422, description: "This subscription's renewal cannot be changed (crypto, one-time, not card)" },
  auto_renewal_too_late: { status: 422, description: "Too close to the end of the cycle to turn renewal off" },
  subscription_ended: { status: 409, description: "The subscription has ended" },
  refund_already_used: { status: 409, description: "The account's refund was already used" },
  refund_guarantee_used: { status: 409, description: "The money-back guarantee was used with this email or card" },
  refund_not_eligible: { status: 409, description: "The payment cannot be refunded (not paid, or not the first)" },
  refund_window_closed: { status: 409, description: "The 30 days for a refund have passed" },
  plan_required: { status: 403, description: "The account has no plan (a Free account): manual setup needs one" },
  configuration_limit: { status: 422, description: "The account has as many WireGuard configurations as it may have" },
  public_key_taken: { status: 409, description: "The WireGuard public key is already registered (on any account)" },
};

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code].status;
}
