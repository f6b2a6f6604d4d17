import type { ColumnType, Generated, Insertable, Selectable } from "kysely";

/*
 * Kysely table interfaces. Portable conventions (one set of migrations for SQLite and PostgreSQL):
 * - timestamps are ISO-8601 UTC text with milliseconds ("2026-11-21T05:48:56.000Z"), so text
 *   comparison orders them;
 * - booleans are integers 0/1;
 * - money is integer cents.
 */

export interface UsersTable {
  id: Generated<number>;
  /** Trimmed and lower-cased before it is stored. */
  email: string;
  name: string | null;
  /** Null for accounts without a password (e.g. created by Google/Apple sign-in). */
  password_hash: string | null;
  email_verified_at: string | null;
  agreement_at: string | null;
  newsletter: Generated<number>;
  newsletter_at: string | null;
  /** The card gateway's customer (Stripe cus_...), made on the first payment. */
  stripe_customer_id: string | null;
  created_at: string;
  updated_at: string;
  /** Set when the account was deleted: the row is then anonymised and kept for the payment records. */
  deleted_at: string | null;
  /** 1 (the default): an email on each sign-in from a browser or app not seen before (0015). */
  sign_in_alerts: Generated<number>;
  /** The account's language, 'en' (the default) | 'de' | 'fr' | 'es': its emails, invoices and answers (0028). */
  language: string | null;
}

export interface DevicesTable {
  id: Generated<number>;
  user_id: number;
  /** 'Web Browser', 'Desktop', ... */
  platform: string;
  device_os: string | null;
  device_os_version: string | null;
  device_brand: string | null;
  device_model: string | null;
  user_agent: string | null;
  created_at: string;
  last_login_at: string;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  device_id: number;
  /** sha256 hex of the bearer token; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export type BillingType = "recurring" | "single";

export interface PlansTable {
  /** Explicit ids: 1, 2, 3, 5, 6, 7 (4 is intentionally unused). */
  id: number;
  plan_id: string;
  slug: string;
  title: string;
  desktop_label: string;
  description: string;
  billing_type: BillingType;
  regular_price_cents: number;
  discounted_price_cents: number;
  discount_tag_label: string;
  save: string;
  order_priority: number;
  duration_months: number;
  extra_months: Generated<number>;
  most_popular: Generated<number>;
}

export type SubscriptionBy = "stripe" | "paypal" | "bitpay";

export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  /** References plans.id. */
  plan_id: number;
  title: string;
  subscription_by: SubscriptionBy;
  subs_status: string;
  billing_type: BillingType;
  stripe_sub_id: string | null;
  sub_start_date: string;
  sub_exp_date: string;
  /** What each period costs (after a coupon), in cents. */
  amount_cents: number | null;
  /** 1 when auto-renewal is off: the subscription ends at sub_exp_date. */
  cancel_at_period_end: Generated<number>;
  coupon_code: string | null;
  created_at: string;
  updated_at: string;
  /** When a renewal failed and the invoice is still unpaid (docs/decisions/027); null while paid up. */
  past_due_since: string | null;
  /** Until when an unpaid renewal keeps the plan (Premium) after sub_exp_date; null while paid up. */
  grace_until: string | null;
  /** Stripe's open invoice of the failed renewal. */
  past_due_invoice_id: string | null;
  /** Why the last attempt failed (the bank's message). */
  payment_failure_message: string | null;
  /** The card (pm_...) the failed attempt charged. */
  past_due_payment_method: string | null;
  /** A plan change waiting for the next renewal (a shorter plan): the plan, when, and the Stripe schedule. */
  pending_plan_id: Generated<number | null>;
  pending_change_at: Generated<string | null>;
  stripe_schedule_id: Generated<string | null>;
  /** The PayPal subscription (I-...) of a subscription_by 'paypal' row (migration 0019); null otherwise. */
  paypal_sub_id: Generated<string | null>;
}

/** One purchase of a recurring plan at a time per account (docs/decisions/028). */
export interface SubscriptionClaimsTable {
  user_id: number;
  claim_key: string;
  expires_at: string;
}

export interface CouponsTable {
  id: Generated<number>;
  /** Upper-case. */
  code: string;
  percent_off: number | null;
  amount_off_cents: number | null;
  /** Comma-separated plans.id values; null = every plan. */
  plan_ids: string | null;
  expires_at: string | null;
  max_redemptions: number | null;
  /** Paid redemptions. */
  times_redeemed: Generated<number>;
  /** Redemptions held by payments in progress (coupon_reservations in state 'held'); they count against the limit. */
  reserved: Generated<number>;
  stripe_promotion_code_id: string | null;
  created_at: string;
}

export type CouponReservationState = "held" | "redeemed" | "released";

/** One payment's claim on a coupon redemption, taken before the charge (docs/decisions/008). */
export interface CouponReservationsTable {
  id: Generated<number>;
  coupon_id: number;
  /** The payment's own key (from its idempotency key, or crypto:<invoice uuid>): one hold per payment. */
  reservation_key: string;
  user_id: number | null;
  state: CouponReservationState;
  /** Business time after which a hold that never became a payment is given back. */
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** A saved card (or wallet card) of a user, at the card gateway. */
export interface PaymentMethodsTable {
  id: Generated<number>;
  user_id: number;
  payment_method_id: string;
  payment_gateway: string;
  card_brand: string;
  card_last4: string;
  card_exp_month: number;
  card_exp_year: number;
  billing_name: string | null;
  billing_postal: string | null;
  wallet_payment_type: Generated<string>;
  is_default: Generated<number>;
  created_at: string;
  updated_at: string;
}

export type TransactionStatus = "paid" | "Payment failed" | "refunded";

export interface TransactionsTable {
  id: Generated<number>;
  user_id: number;
  plan_id: number;
  subscription_id: number | null;
  amount_cents: number;
  currency: Generated<string>;
  status: TransactionStatus;
  payment_gateway: string;
  wallet_payment_type: string | null;
  /** The gateway's id for the payment (Stripe in_... or pi_...): unique, so it is recorded once. */
  gateway_ref: string | null;
  coupon_code: string | null;
  failure_message: string | null;
  created_at: string;
}

export interface InvoicesTable {
  id: Generated<number>;
  user_id: number;
  transaction_id: number;
  number: string;
  amount_cents: number;
  currency: Generated<string>;
  status: string;
  gateway_invoice_id: string | null;
  hosted_invoice_url: string | null;
  created_at: string;
  /** What the invoice says, copied when it is made (0025; null on older invoices). Net in cents. */
  net_cents: number | null;
  /** The VAT rate in percent as a decimal string (e.g. "19"); null: no VAT line charged. */
  vat_rate: string | null;
  vat_cents: number | null;
  period_start: string | null;
  period_end: string | null;
  plan_title: string | null;
  payment_method: string | null;
  /** The buyer as the billing details said when the invoice was made (the account's email when none). */
  buyer_email: string | null;
  buyer_name: string | null;
  buyer_address: string | null;
  buyer_country: string | null;
  buyer_vat_number: string | null;
  /** The country whose VAT the invoice charged or reverse charged; null where none applied (0026). */
  tax_country: string | null;
  /** 1: reverse charged (an EU business with a valid VAT number accounts for the VAT) (0026). */
  reverse_charge: Generated<number>;
  /** The paying card's country as the gateway told it; null when none was told (0026). */
  card_country: string | null;
  /** 1: the card's country differs from the billing country taxed; evidence, never a refusal (0026). */
  country_mismatch: Generated<number>;
}

/** The last number given per series ('INV', 'CN') and year (0025). */
export interface DocumentCountersTable {
  series: string;
  year: number;
  value: number;
}

export type VatNumberStatus = "valid" | "invalid" | "unchecked";

/** An account's billing details (0025). */
export interface BillingDetailsTable {
  user_id: number;
  /** ISO 3166-1 alpha-2. */
  country: string;
  name: string;
  address: string | null;
  /** Normalised: upper case, without spaces or dots, starting with the country's VAT prefix. */
  vat_number: string | null;
  vat_number_status: VatNumberStatus | null;
  updated_at: string;
}

/** A refund's credit note (0025). */
export interface CreditNotesTable {
  id: Generated<number>;
  number: string;
  user_id: number;
  invoice_id: number;
  amount_cents: number;
  /** The amount refunded before tax and its VAT share (0027); null on older rows. */
  net_cents: ColumnType<number | null, number | null | undefined, number | null>;
  vat_cents: ColumnType<number | null, number | null | undefined, number | null>;
  currency: string;
  created_at: string;
}

export interface PaymentRequestsTable {
  id: Generated<number>;
  idempotency_key: string;
  /** sha256 of what was asked: the same key with another request is refused. */
  request_hash: string;
  state: "pending" | "done";
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  id: string;
  source: string;
  type: string;
  received_at: string;
}

/** The Stripe sandbox's state: made by 0004 and by the sandboxes' own migrations (api/sandboxes/migrations, docs/decisions/024). */
export interface StripeSandboxObjectsTable {
  id: string;
  type: string;
  customer: string | null;
  /** The object as the Stripe API answers it, JSON. */
  data: string;
  /** Unix seconds (sandbox business time). */
  created: number;
}

/** Sandbox mode's business clock: how far the test clock was moved (made by the sandboxes' 0002). */
export interface SandboxClockTable {
  id: string;
  /** Milliseconds; PostgreSQL answers a bigint as text. */
  offset_ms: number | string;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: string;
}

/** What a row of verification_codes is for; 'set_password' rows only record send times (no code). */
export type CodePurpose = "signup" | "login" | "reset" | "set_password" | "delete" | "two_factor" | "email_change" | "email_change_auth" | "cancel" | "passkey";

/**
 * One row per (email, purpose): the live code (hashed) and the time of the last send, kept for the
 * 30 s resend rule even when the code is consumed or when no code was emailed (unknown emails get a
 * code nobody receives, so that every answer is the same as for known ones).
 */
export interface VerificationCodesTable {
  id: Generated<number>;
  email: string;
  purpose: CodePurpose;
  /** sha256 hex of salt + code; null once consumed (or for 'set_password' rows). */
  code_hash: string | null;
  code_salt: string | null;
  /** Wrong tries against the current code. */
  attempts: Generated<number>;
  /** Business time of the last send for this email and purpose. */
  sent_at: string;
  /** Business time; null when there is no live code. */
  expires_at: string | null;
  /** Sign-up context given to temp-signup (for checkout). */
  is_checkout: number | null;
  plan_id: string | null;
}

/** The mail sandbox's outbox (SMTP_URL unset): every email, so that every instance sees it. */
export interface MailOutboxTable {
  id: Generated<number>;
  to_address: string;
  subject: string;
  text: string;
  html: string;
  sent_at: string;
  /** The Reply-To header (0014), null for most emails. */
  reply_to: ColumnType<string | null, string | null | undefined, string | null>;
}

export type OneTimeTokenPurpose = "reset" | "set_password" | "sso";

/** Single-use tokens (password reset, first password, SSO); only the sha256 is stored. Real time. */
export interface OneTimeTokensTable {
  id: Generated<number>;
  purpose: OneTimeTokenPurpose;
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** SSO tokens: the bearer token (session) that made it; revoking that session retires it. */
  token_id: number | null;
}

/** Google/Apple ID tokens already used to sign in, until their expiry (replay guard). */
export interface UsedIdTokensTable {
  /** sha256 of the issuer and jti, or of the whole token when it has no jti. */
  key_hash: string;
  expires_at: string;
}

export type GuaranteeUseKind = "email" | "card";

/** Kept after account deletion: keyed hashes of emails and card fingerprints that had a refund (decision 016). */
export interface RefundGuaranteeUsesTable {
  id: Generated<number>;
  kind: GuaranteeUseKind;
  key_hash: string;
  created_at: string;
}

export type LinkType = "GOOGLE" | "APPLE";

/** A Google or Apple account that signs into a user: (link_type, subject) and (user_id, link_type) are unique. */
export interface AccountLinksTable {
  id: Generated<number>;
  user_id: number;
  link_type: LinkType;
  /** The provider's `sub` claim. */
  subject: string;
  /** The provider account's email (lower-cased), as last seen in its ID token. */
  email: string;
  created_at: string;
}

/**
 * Desktop hand-off codes: a short code that gives the desktop app the bearer token of a Desktop
 * sign-in made in the browser. The code is stored as sha256; the token only encrypted under a key
 * derived from the code (so only a holder of the code can recover it). Real time, single use.
 */
export interface DesktopCodesTable {
  id: Generated<number>;
  code_hash: string;
  /** base64url(iv | AES-256-GCM ciphertext | tag); null once used. */
  token_ciphertext: string | null;
  /** base64url HKDF salt (random per row). */
  salt: string;
  user_id: number;
  token_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Two-factor state of an account (docs/decisions/017). Secrets only encrypted; TOTP steps are real time. */
export interface TwoFactorTable {
  user_id: number;
  /** The active secret (AES-256-GCM, see lib/two-factor.ts); null until turned on. */
  secret_ciphertext: string | null;
  /** The secret shown by 'Set up', until 'Turn on' proves the app has it. */
  pending_secret_ciphertext: string | null;
  pending_created_at: string | null;
  enabled_at: string | null;
  /** The newest accepted 30-second time step: a code is accepted only for a later step. */
  last_used_step: number | null;
  updated_at: string;
}

/** Single-use recovery codes, stored as sha256. */
export interface TwoFactorRecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

/** A sign-in waiting for its second factor; only the sha256 of the challenge id is stored. Real time. */
export interface TwoFactorChallengesTable {
  id: Generated<number>;
  challenge_hash: string;
  user_id: number;
  purpose: string;
  /** JSON of the device row the token gets. */
  device: string;
  attempts: Generated<number>;
  created_at: string;
  expires_at: string;
}

export type CryptoInvoiceKind = "purchase" | "renewal";

/** Our record of a BitPay invoice: a purchase at checkout, or a renewal invoice emailed before expiry. */
export interface CryptoInvoicesTable {
  id: Generated<number>;
  uuid: string;
  user_id: number;
  plan_id: number;
  kind: CryptoInvoiceKind;
  subscription_id: number | null;
  renewal_key: string | null;
  amount_cents: number;
  currency: Generated<string>;
  bitpay_invoice_id: string | null;
  invoice_url: string | null;
  status: string;
  exception_status: string | null;
  email: string;
  activated_at: string | null;
  /** A purchase's coupon (amount_cents is already its total); its redemption counts when the invoice is paid. */
  coupon_id: ColumnType<number | null, number | null | undefined, number | null>;
  coupon_code: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
  /** The tax of amount_cents, computed when the invoice was made (0026): net + vat = amount; null net before 0026. */
  net_cents: ColumnType<number | null, number | null | undefined, number | null>;
  vat_cents: Generated<number>;
  vat_rate: ColumnType<string | null, string | null | undefined, string | null>;
  tax_country: ColumnType<string | null, string | null | undefined, string | null>;
  reverse_charge: Generated<number>;
}

/** The crypto sandbox's invoices, as BitPay answers them (JSON): made by 0005 and by the sandboxes' own migrations. */
export interface BitpaySandboxInvoicesTable {
  id: string;
  data: string;
  /** Unix seconds (business time). */
  created: number;
}

/** The PayPal sandbox's objects (sandbox migration 0003), one row each. */
export interface PaypalSandboxObjectsTable {
  /** The PayPal id (order, capture, I-..., P-..., PROD-...), or request:/delivery: rows. */
  id: string;
  type: string;
  /** The parent: a capture's order, a sale's subscription, a plan's product, a subscription's BA token. */
  ref: string | null;
  /** The sandbox's record of the object, JSON. */
  data: string;
  /** Unix seconds (business time). */
  created: number;
}

export type RefundKind = "card" | "crypto" | "paypal";
/** card: 'pending' until the gateway confirms, then 'refunded'; crypto: 'requested' (staff send it). */
export type RefundStatus = "pending" | "refunded" | "requested";

/** The money-back guarantee, used at most once per account (unique user_id). */
export interface RefundsTable {
  id: Generated<number>;
  user_id: number;
  transaction_id: number;
  kind: RefundKind;
  status: RefundStatus;
  amount_cents: number;
  refund_address: string | null;
  gateway_refund_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A notice owed to a customer, claimed once by its key before it is sent (migration 0011). */
export interface NoticesTable {
  id: Generated<number>;
  notice_key: string;
  kind: string;
  user_id: number | null;
  created_at: string;
}

/** An account's security event (0015): kept 90 days; the address only shortened. */
/** An account's passkey (WebAuthn credential), docs/decisions/037. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** base64url, unique across accounts. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter (bigint: a string from PostgreSQL). */
  counter: ColumnType<number | string, number, number>;
  /** JSON array of the transports the browser reported, or null. */
  transports: string | null;
  /** The WebAuthn user handle (base64url) the account's passkeys share. */
  user_handle: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** A registration or sign-in challenge: single use, short-lived. */
export interface PasskeyChallengesTable {
  id: Generated<number>;
  /** sha256 of the opaque challenge id handed to the client. */
  id_hash: string;
  /** 'register' or 'sign_in'. */
  purpose: string;
  /** The account registering (null for sign-in). */
  user_id: number | null;
  user_handle: string | null;
  /** The WebAuthn challenge (base64url) the options carried. */
  challenge: string;
  created_at: string;
  expires_at: string;
}

/**
 * A session's confirmation (its account's password or emailed code, and second factor) that lets it add
 * a passkey for a few minutes; one per session, used up by the passkey it adds. Real time.
 */
export interface PasskeyConfirmationsTable {
  id: Generated<number>;
  user_id: number;
  /** The session (tokens.id) that confirmed: only it may use the confirmation. */
  token_id: number;
  created_at: string;
  expires_at: string;
}

/** What a password reset earns: list and remove the account's passkeys for a while. Real time. */
export interface PasskeyReviewsTable {
  id: Generated<number>;
  /** sha256 hex of the random token. */
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

export interface SecurityEventsTable {
  id: Generated<number>;
  user_id: number;
  /** A SecurityEventKind (api/identity/security-events.ts). */
  kind: string;
  created_at: string;
  user_agent: string | null;
  /** The User-Agent client hints sent with it, as api/identity/user-agent.ts stores them (JSON), or null. */
  client_hints: string | null;
  /** The client address shortened: IPv4 to its /24, IPv6 to its /48 ('203.0.113.0/24'). */
  network: string | null;
  /** A short, non-secret detail: a passkey's name, a card's brand and last four. */
  detail: string | null;
}

/** What a right code on /cancel earns (0018): it can only turn the account's auto-renewal off, for 15 minutes. */
export interface CancelProofsTable {
  id: Generated<number>;
  /** sha256 hex of the random token. */
  token_hash: string;
  user_id: number;
  created_at: string;
  /** Real time, like every token. */
  expires_at: string;
  /** When the turn-off used it up; null until then. */
  used_at: string | null;
}

/** A browser (device cookie) or app (device id) an account has signed in from; only a sha256 of the key (0015). */
export interface KnownSignInDevicesTable {
  id: Generated<number>;
  user_id: number;
  device_key_hash: string;
  created_at: string;
  last_seen_at: string;
}

/** An account's pending email change (0016): the address asked for; its code is purpose 'email_change'. */
export interface EmailChangeRequestsTable {
  user_id: number;
  new_email: string;
  created_at: string;
}

/** The 7-day, single-use link that puts an account's previous email back (0016); only the sha256 is stored. */
export interface EmailChangeRevertsTable {
  id: Generated<number>;
  user_id: number;
  old_email: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Our PayPal billing plan of each plan (migration 0019), at the price it was last put in step with. */
export interface PaypalPlansTable {
  plan_id: number;
  paypal_product_id: string;
  paypal_plan_id: string;
  price_cents: number;
  created_at: string;
  updated_at: string;
}

export type PayPalCheckoutKind = "order" | "subscription";
/**
 * created: sent to PayPal's approval page; paid; cancelled (by the buyer, or replaced by a newer checkout: nothing
 * kept); declined (PayPal refused the payment); refused (a second recurring plan: nothing kept, anything charged refunded).
 */
export type PayPalCheckoutStatus = "created" | "paid" | "cancelled" | "declined" | "refused";

/** One PayPal checkout (migration 0019): an order, or a subscription waiting for the buyer's approval. */
export interface PaypalCheckoutsTable {
  id: Generated<number>;
  /** Ours (uuid): the orders' custom_id and the capture's PayPal-Request-Id. */
  checkout_id: string;
  user_id: number;
  plan_id: number;
  kind: PayPalCheckoutKind;
  /** The page's idempotency key, per user: the same key answers the same checkout. */
  idempotency_key: string;
  /** The PayPal order id or subscription id (null until PayPal answered). */
  paypal_id: string | null;
  approve_url: string | null;
  /** What the first payment asks (after the coupon), in cents. */
  amount_cents: number;
  coupon_id: number | null;
  coupon_code: string | null;
  /** The coupon hold's key (coupons.ts), given back when the checkout is cancelled. */
  coupon_hold_key: string | null;
  status: PayPalCheckoutStatus;
  /** Our subscription, once paid. */
  subscription_id: number | null;
  /** The capture id (order) or the first sale id (subscription), once paid. */
  gateway_ref: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
  /** The tax of amount_cents when the checkout was made (0026); its rate also bills the subscription's renewals. */
  net_cents: ColumnType<number | null, number | null | undefined, number | null>;
  vat_cents: Generated<number>;
  vat_rate: ColumnType<string | null, string | null | undefined, string | null>;
  tax_country: ColumnType<string | null, string | null | undefined, string | null>;
  reverse_charge: Generated<number>;
}

/** A WireGuard configuration of an account (0024, docs/decisions/058). */
export interface VpnConfigurationsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** The server it was made for, as the server list named it then. */
  server_hostname: string;
  server_country_code: string;
  server_country: string;
  server_city: string;
  /** The device's WireGuard public key (base64 of 32 bytes), unique over every row, revoked ones too. */
  public_key: string;
  /** "10.64.0.2" (10.64.0.0/10) and "fd7a:651:6f26::2" (the ULA /48), unique among live rows. */
  ipv4: string;
  ipv6: string;
  created_at: string;
  revoked_at: string | null;
  /** The latest handshake a VPN server reported (the server's time). */
  last_handshake_at: string | null;
  /** The peers-list revision of its last change there: created, revoked, paused or resumed. */
  revision: number;
}

/** Per account that has made a configuration: the live count (the limit) and the paused flag the peers list follows. */
export interface VpnAccountsTable {
  user_id: number;
  live_configurations: Generated<number>;
  /** 1 while the account has no plan, as the peers list last saw it. */
  paused: Generated<number>;
}

/** An account's OpenVPN/IKEv2 service credentials: the password only as its argon2id hash. */
export interface VpnCredentialsTable {
  user_id: number;
  username: string;
  password_hash: string;
  /** When this password was made (a reset makes a new one). */
  created_at: string;
}

/** 'peers_revision' and 'next_address'. */
export interface VpnCountersTable {
  name: string;
  value: number;
}

export interface DB {
  users: UsersTable;
  devices: DevicesTable;
  tokens: TokensTable;
  plans: PlansTable;
  subscriptions: SubscriptionsTable;
  rate_limits: RateLimitsTable;
  verification_codes: VerificationCodesTable;
  mail_outbox: MailOutboxTable;
  one_time_tokens: OneTimeTokensTable;
  account_links: AccountLinksTable;
  desktop_codes: DesktopCodesTable;
  coupons: CouponsTable;
  coupon_reservations: CouponReservationsTable;
  payment_methods: PaymentMethodsTable;
  transactions: TransactionsTable;
  invoices: InvoicesTable;
  payment_requests: PaymentRequestsTable;
  webhook_events: WebhookEventsTable;
  stripe_sandbox_objects: StripeSandboxObjectsTable;
  sandbox_clock: SandboxClockTable;
  crypto_invoices: CryptoInvoicesTable;
  bitpay_sandbox_invoices: BitpaySandboxInvoicesTable;
  paypal_sandbox_objects: PaypalSandboxObjectsTable;
  refunds: RefundsTable;
  used_id_tokens: UsedIdTokensTable;
  refund_guarantee_uses: RefundGuaranteeUsesTable;
  two_factor: TwoFactorTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  two_factor_challenges: TwoFactorChallengesTable;
  notices: NoticesTable;
  security_events: SecurityEventsTable;
  known_sign_in_devices: KnownSignInDevicesTable;
  cancel_proofs: CancelProofsTable;
  subscription_claims: SubscriptionClaimsTable;
  email_change_requests: EmailChangeRequestsTable;
  email_change_reverts: EmailChangeRevertsTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  passkey_confirmations: PasskeyConfirmationsTable;
  passkey_reviews: PasskeyReviewsTable;
  paypal_plans: PaypalPlansTable;
  paypal_checkouts: PaypalCheckoutsTable;
  vpn_configurations: VpnConfigurationsTable;
  vpn_accounts: VpnAccountsTable;
  vpn_credentials: VpnCredentialsTable;
  vpn_counters: VpnCountersTable;
  document_counters: DocumentCountersTable;
  billing_details: BillingDetailsTable;
  credit_notes: CreditNotesTable;
}

export type User = Selectable<UsersTable>;
export type Device = Selectable<DevicesTable>;
export type Token = Selectable<TokensTable>;
export type Plan = Selectable<PlansTable>;
export type NewPlan = Insertable<PlansTable>;
export type Subscription = Selectable<SubscriptionsTable>;
export type NewSubscription = Insertable<SubscriptionsTable>;
export type AccountLink = Selectable<AccountLinksTable>;
export type Coupon = Selectable<CouponsTable>;
export type PaymentMethod = Selectable<PaymentMethodsTable>;
export type Transaction = Selectable<TransactionsTable>;
export type CryptoInvoice = Selectable<CryptoInvoicesTable>;
export type PayPalCheckout = Selectable<PaypalCheckoutsTable>;
