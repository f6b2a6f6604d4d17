import { createHash, randomBytes } from "node:crypto";
import type { PlatformServices } from "../platform/services";
import type { Plan, User } from "../platform/db/schema";
import { DomainError, isRefusal } from "../platform/errors";
import { type Authentication, PAYMENT_MESSAGES, type PaymentsDeps, payWithCard } from "./card-payments";
import { checkCoupon } from "./coupons";
import { oncePerKey, refusalAnswer, replayedRefusal, type StoredRefusal } from "./idempotency";
import { formatUsd } from "./money";

/*
 * Google Pay and Apple Pay (commerce §2, §3, §7).
 *
 * A wallet payment is a card payment: the wallet sheet (Stripe's Express Checkout Element live, the
 * portal's stand-in sheet in sandbox mode) gives the browser a card PaymentMethod, and the API pays
 * with it exactly as with a new card (`payWithCard`), recording the payment with the wallet's type
 * ('googlepay' / 'applepay') in transactions.wallet_payment_type and in the Stripe metadata, so
 * renewals keep it. The same idempotency table and the same per-user attempt limit as card payments
 * apply: a double submit is one charge.
 *
 * Apple Pay merchant validation: with live Stripe, the Express Checkout Element validates the merchant
 * itself (Stripe is the Apple Pay merchant; the site's domain is registered with Stripe), so no
 * certificate lives here and the endpoint answers 501. The sandbox answers a stand-in session object.
 */

export const WALLET_SOURCES = ["googlepay", "applepay"] as const;
export type WalletSource = (typeof WALLET_SOURCES)[number];

export const WALLET_MESSAGES = {
  paid: PAYMENT_MESSAGES.paid,
  confirm: "Please confirm the payment with your bank.",
  source: "The payment source must be googlepay or applepay.",
  currency: "Only USD is accepted.",
  amountNotCents: "The amount must be a whole number of cents, e.g. 599 for $5.99.",
  merchantSession: "Apple Pay merchant session created (sandbox stand-in).",
  merchantValidationLive:
    "Apple Pay merchant validation is done by Stripe.js (the Express Checkout Element) with live Stripe: register the site's domain for Apple Pay in the Stripe Dashboard. This API holds no Apple Pay merchant certificate.",
  domainNotRegistered: "This domain is not registered for Apple Pay.",
  validationUrl: "The validation URL must be an Apple Pay server (https://…apple.com).",
} as const;

/** 'The amount does not match the price of 2 Years: 10776 cents ($107.76 USD).' */
export function amountMismatchMessage(planTitle: string, expectedCents: number): string {
  return `The amount does not match the price of ${planTitle}: ${expectedCents} cents (${formatUsd(expectedCents)} USD).`;
}

/** What a wallet charge must ask: the plan's price, or the coupon's total when one is given. */
export async function expectedAmountCents(ctx: Pick<PlatformServices, "db" | "clock">, plan: Plan, couponCode?: string): Promise<number> {
  if (!couponCode) return plan.discounted_price_cents;
  const check = await checkCoupon(ctx.db, couponCode, plan, ctx.clock.now());
  if (!check.ok) throw new DomainError("coupon_invalid", check.message, { field: "coupon" });
  return check.totalCents;
}

/** The Apple Pay charge's amount and currency against the plan's price: 422 with the reason under the field. */
export function checkChargeAmount(plan: Pick<Plan, "title">, expectedCents: number, amount: number, currency: string): void {
  if (currency.toUpperCase() !== "USD") {
    throw new DomainError("currency_unsupported", WALLET_MESSAGES.currency, { field: "currency" });
  }
  if (amount !== expectedCents) {
    const message = amountMismatchMessage(plan.title, expectedCents);
    throw new DomainError("amount_mismatch", message, { field: "amount" });
  }
}

/**
 * The idempotency key of an Apple Pay charge that came without an Idempotency-Key header: one per
 * (user, token, plan), so posting one wallet token twice for one plan charges once.
 */
export function derivedChargeKey(userId: number, token: string, planId: number): string {
  return createHash("sha256").update(`apple-charge:${userId}:${planId}:${token}`).digest("base64url");
}

export type WalletOutcome = { status: "paid"; subscriptionId: number } | { status: "requires_action"; authentication: Authentication };

export interface WalletPaymentInput {
  user: User;
  plan: Plan;
  paymentMethodId: string;
  source: WalletSource;
  couponCode?: string;
  /** The idempotency key: one payment per (scope, user, key); every Stripe key derives from it. */
  key: string;
  /** 'wallet' (POST /api/payments/wallet) or 'applecharge' (the Apple Pay charge). */
  scope: "wallet" | "applecharge";
  /** The request as sent (without the key): the same key with other details is refused. */
  request: unknown;
  /** Runs once per key before the gateway is called (the per-user payment attempt limit). */
  beforeCharge: () => Promise<void>;
}

type StoredWalletAnswer = {
  message: string;
  outcome?: WalletOutcome;
};

/**
 * Pays a plan with a wallet's card PaymentMethod, once per key: the first request pays, every later
 * one with the same key gets the first answer (declines included: card_declined with the gateway's message).
 */
export async function payWithWallet(ctx: Pick<PlatformServices, "db" | "clock"> & { payments: PaymentsDeps }, input: WalletPaymentInput): Promise<{ outcome: WalletOutcome; message: string }> {
  const { user, plan } = input;
  const answer = await oncePerKey(
    ctx.db,
    `${input.scope}:${user.id}:${input.key}`,
    input.request,
    async () => {
      try {
        await input.beforeCharge();
        const outcome = await payWithCard(ctx.payments, {
          user,
          plan,
          paymentMethodId: input.paymentMethodId,
          saved: false,
          couponCode: input.couponCode,
          key: `${input.scope}-${user.id}-${input.key}`,
          walletPaymentType: input.source,
        });
        if (outcome.status === "declined") return { ok: false, body: { code: "card_declined", message: outcome.message } satisfies StoredRefusal };
        if (outcome.status === "requires_action") {
          return { ok: true, body: { message: WALLET_MESSAGES.confirm, outcome } satisfies StoredWalletAnswer };
        }
        return { ok: true, body: { message: WALLET_MESSAGES.paid, outcome } satisfies StoredWalletAnswer };
      } catch (error) {
        // Refusals that are the request's fault are answers too (and replayed); failures are not.
        if (isRefusal(error)) return refusalAnswer(error);
        throw error;
      }
    },
    () => ctx.clock.now(),
  );
  const stored = answer.body as StoredWalletAnswer;
  if (!answer.ok || !stored.outcome) throw replayedRefusal(answer.body);
  return { outcome: stored.outcome, message: stored.message };
}

/** The stand-in for Apple's merchant session (sandbox only): the fields Apple's startSession answers. */
export interface SandboxMerchantSession {
  epochTimestamp: number;
  expiresAt: number;
  merchantSessionIdentifier: string;
  nonce: string;
  merchantIdentifier: string;
  domainName: string;
  displayName: string;
  signature: string;
  operationalAnalyticsIdentifier: string;
  retries: number;
  sandbox: true;
}

/** Apple's merchant sessions are valid for five minutes. */
const MERCHANT_SESSION_MS = 5 * 60_000;

/** The host the merchant session is for: the portal's own (PUBLIC_URL), the only one "registered" in the sandbox. */
export function merchantDomain(publicUrl: string, requested?: string): string {
  const own = new URL(publicUrl).hostname.toLowerCase();
  if (requested !== undefined && requested.toLowerCase() !== own) {
    throw new DomainError("wallet_domain_unregistered", WALLET_MESSAGES.domainNotRegistered, { field: "domain" });
  }
  return own;
}

/** Apple's validation URL must be one of Apple's servers (never fetched here; checked so that a client learns early). */
export function checkValidationUrl(validationURL: string | undefined): void {
  if (validationURL === undefined) return;
  let url: URL | null = null;
  try {
    url = new URL(validationURL);
  } catch {
    url = null;
  }
  const host = url?.hostname.toLowerCase() ?? "";
  if (url?.protocol !== "https:" || !(host === "apple.com" || host.endsWith(".apple.com"))) {
    throw new DomainError("validation_failed", WALLET_MESSAGES.validationUrl, { field: "validationURL" });
  }
}

export function sandboxMerchantSession(domain: string, now: Date): SandboxMerchantSession {
  const epoch = now.getTime();
  return {
    epochTimestamp: epoch,
    expiresAt: epoch + MERCHANT_SESSION_MS,
    merchantSessionIdentifier: `SSH_SANDBOX_${randomBytes(16).toString("hex").toUpperCase()}`,
    nonce: randomBytes(4).toString("hex"),
    merchantIdentifier: createHash("sha256").update(`merchant.sandbox.${domain}`).digest("hex").toUpperCase(),
    domainName: domain,
    displayName: "VPN",
    signature: "sandbox",
    operationalAnalyticsIdentifier: `VPN:SANDBOX:${domain}`,
    retries: 0,
    sandbox: true,
  };
}
