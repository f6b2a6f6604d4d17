import { createHash, randomUUID } from "node:crypto";
import type { AppLoadContext } from "@remix-run/node";
import { data, redirect, redirectDocument } from "@remix-run/node";
import { z } from "zod";
import { CheckoutCodeSchema, CheckoutCountrySchema, CheckoutEmailSchema, CouponSchema, SignupPasswordSchema } from "~/schemas/index.server";
import { CHECKOUT_COUNTRY_MESSAGE, COUPON_INVALID } from "~/schemas/checkout";
import { languageOf, translatorOf } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import { type ApiErrorCode, type ApiResult, type ApiSchemas, CODE_REFUSED, createApiClient, serviceUnavailable } from "~/utils/api.server";
import { type CheckoutFlow, CODE_TTL_SECONDS, readFlow, RESEND_SECONDS, secondsLeft, writeFlow } from "~/utils/flow.server";
import { failureStatus, formFailure, parseSubmission } from "~/utils/forms.server";
import { commitTokenSession, getSessionToken } from "~/utils/session.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";
import { paypalKey } from "~/features/paypal/paypal-key.server";
import { RECEIPT_PARAM } from "./receipt";
import { type Quote, shownQuote } from "./summary";
import { loadReceipt, type Receipt } from "./receipt.server";
import { browserCountry, chosenCountry, isKnownCountry, mayBeTaxed, saveCheckoutCountry } from "~/features/tax/checkout-country.server";
import { languageOnSignIn } from "~/i18n/account-language.server";

// The checkout of commerce §2: the visitor's email verification (server-side steps in the __flow
// cookie), the coupon, and the payments. Every step is a plain form post; JavaScript only adds the
// inline card form (a card becomes a payment method in the browser, never posted here).

/**
 * The plan as the checkout shows it. The loader sends the page only these of the API's fields: every
 * value it sends is encoded into the page and the data requests (single fetch's turbo-stream), and the
 * whole plan (its payment terms, labels, decimal prices) cost more to encode than its render used.
 */
export type Plan = Pick<ApiSchemas["Plan"], "id" | "title" | "billing_type" | "regular_price_cents" | "discounted_price_cents" | "savings_cents" | "discount_percent">;

function shownPlan({ id, title, billing_type, regular_price_cents, discounted_price_cents, savings_cents, discount_percent }: ApiSchemas["Plan"]): Plan {
  return { id, title, billing_type, regular_price_cents, discounted_price_cents, savings_cents, discount_percent };
}
export type SavedCard = ApiSchemas["SavedCard"];
/** The API's whole quote, as the calls answer it (the page gets `Quote`, summary.ts). */
type ApiQuote = ApiSchemas["CheckoutQuote"];

/** 'Payment Successful!' redirects to the account after this many seconds (commerce §9). */
export const SUCCESS_REDIRECT_SECONDS = 300;
/** The page stays the receipt this long after paying (the checkout flow's own hour). */
const RECEIPT_SECONDS = 60 * 60;

// The checkout's own messages are catalogue keys (app/locales/<language>/checkout.json): the toast, the form's
// error and the notice translate them when they show them; the API's messages come in the page's language.
const PAYMENT_NOT_COMPLETED = "checkout.payment.notCompleted";
export const PAYPAL_CANCELLED = "checkout.paypal.cancelled";
const PAYPAL_FAILED = "checkout.paypal.failed";
const STRIPE_FAILED = "checkout.card.failed";
const REQUEST_FAILED = "checkout.requestFailed";
const INVALID_CODE = "checkout.verify.invalid";

/**
 * What PayPal adds to our return_url / cancel_url (?paypal=return|cancel, set by the API): `token` (the
 * order id, or the subscription's approval token) and, for a subscription, `subscription_id`. Anything
 * else is not a PayPal return, and the page is the checkout as usual.
 */
const PAYPAL_ID = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const PayPalReturnSchema = z.object({
  paypal: z.enum(["return", "cancel"]),
  token: PAYPAL_ID.optional(),
  subscription_id: PAYPAL_ID.optional(),
});
export type PayPalReturn = { token?: string; subscription_id?: string };

/** The PayPal return of this URL, or null. */
export function paypalReturnOf(url: URL): (PayPalReturn & { outcome: "return" | "cancel" }) | null {
  // Most loads are not a return: no parse then (a refused parse builds zod's issues, the page's dearest check).
  if (!url.searchParams.has("paypal")) return null;
  const parsed = PayPalReturnSchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success || (!parsed.data.token && !parsed.data.subscription_id)) return null;
  const { paypal, token, subscription_id } = parsed.data;
  // A subscription is named by its id; its approval token says nothing more.
  return { outcome: paypal, ...(subscription_id ? { subscription_id } : { token }) };
}

/** The country the checkout's quotes are taxed for: the order summary's 'Country'. */
export type CheckoutCountry = { code: string };

export type VisitorStep =
  | { step: "email"; email?: string }
  | { step: "code"; email: string; sentAt: number; resendIn: number; expiresIn: number }
  | { step: "password"; email: string };

export type CheckoutState = {
  plan: Plan;
  /** The signed-in account's email; null for a visitor. */
  accountEmail: string | null;
  visitor: VisitorStep | null;
  savedCards: SavedCard[];
  /** The saved cards could not be loaded (commerce §8: 'Failed to fetch payment method list'). */
  cardsFailed: boolean;
  /** The gateways offered: card (Stripe), crypto (BitPay), PayPal (with its client id for the live buttons). */
  gateway: ApiSchemas["PaymentConfig"];
  /** The coupon the quotes apply (the API's answer): its code and what it takes off, in cents. */
  coupon: { code: string; discount_amount_cents: number } | null;
  /**
   * The API's quote for each payment method offered (POST /api/checkout/quote's answer): what is paid
   * now, what it buys, the first term's end, what renews. Every sum and term on the page is one of these.
   */
  quotes: Quote[];
  /** A fresh key for each rendering of the payment forms: a double submit of one form pays once. */
  idempotencyKey: string;
  /** Seconds left before 'Payment Successful!' sends the customer home; null without it (before paying, or closed). */
  paidRedirectIn: number | null;
  /** After paying, the page is the receipt instead of the checkout; null before. */
  receipt: Receipt | null;
  notice: string | null;
  /** Back from the hosted payment page, and how it ended cannot be read yet: the page says so (not a plan change). */
  confirming: boolean;
  /** Back from the bank's challenge without JavaScript, and it failed: the message, next to that form. */
  authenticationFailure: { form: string; message: string } | null;
  /** Back from PayPal, cancelled or refused: the message, next to the PayPal form (and as a toast). */
  paypalFailure: string | null;
  /** Back from a crypto invoice that expired unpaid: the message, in the crypto panel (and as a toast; issue 33). */
  cryptoFailure: string | null;
  /** The first term's end if paid now (the order summary, docs/decisions/029). */
  termEndsOn: string;
  /**
   * The country the quotes are taxed for and the list to choose from (issue 35); null when the list
   * could not be loaded (the page then shows the API's quotes without a choice).
   */
  /** The country the quotes are taxed for (the select's choice); null on the receipt. */
  country: CheckoutCountry | null;
};

/** The forms that pay by card and may meet 3-D Secure. */
const CARD_FORMS = new Set(["pay-card", "pay-saved"]);

export function checkoutPath(planId: number, prefix: "/subscription/payment" | "/payment" = "/subscription/payment") {
  return `${prefix}/${planId}`;
}

function pathOf(request: Request) {
  return new URL(request.url).pathname;
}

/** The plan id of the URL, or a 404. */
export function planIdOf(param: string | undefined): number {
  const id = Number(param);
  if (!param || !/^\d{1,9}$/.test(param) || !Number.isSafeInteger(id) || id < 1) throw new Response("Not Found", { status: 404 });
  return id;
}

async function flowFor(request: Request, planId: number): Promise<CheckoutFlow> {
  const flow = await readFlow(request, "checkout");
  return flow?.planId === planId ? flow : { planId };
}

export async function checkoutState(request: Request, context: AppLoadContext, planId: number) {
  const token = await getSessionToken(request);
  const api = createApiClient(request, context, token);
  const url = new URL(request.url);

  // Back from the hosted payment page: ask the gateway (through the API) what was paid. The payment's
  // webhook has usually recorded it already, so the account's plan is this one: only the answer of this
  // return (paidAt in the flow) tells the page that it was just bought (the receipt) rather than a plan
  // to change to. An answer the API cannot give now (a gateway or API failure) is asked again by the
  // next load (the flow keeps the session), never read as a refusal.
  const sessionId = url.searchParams.get("session_id");
  if (sessionId && token) {
    const flow = await flowFor(request, planId);
    throw await hostedOutcome(request, api, url.pathname, flow, sessionId);
  }

  // Back from the bank's 3-D Secure challenge (no JavaScript): the API finishes the payment from what
  // the gateway says; paid shows 'Payment Successful!', failed its message next to the form.
  let authenticationFailure: CheckoutState["authenticationFailure"] = null;
  const authenticated = url.searchParams.get("authenticated");
  const paymentIntent = url.searchParams.get("payment_intent");
  if (authenticated && CARD_FORMS.has(authenticated) && paymentIntent && token) {
    const subscription = url.searchParams.get("subscription");
    const finished = await api.post("/api/payments/card/complete-authentication", {
      body: { payment_intent: paymentIntent, ...(subscription ? { subscription } : {}) },
    });
    if (finished.ok && finished.data.status === "paid") {
      const flow = await flowFor(request, planId);
      throw redirect(url.pathname, { headers: { "Set-Cookie": await writeFlow(request, "checkout", { ...flow, coupon: undefined, paidAt: Date.now() }) } });
    }
    if (finished.ok) throw await redirectWithError(url.pathname, PAYMENT_NOT_COMPLETED);
    if (finished.status >= 500) throw await redirectWithError(url.pathname, finished.message || STRIPE_FAILED);
    authenticationFailure = { form: authenticated, message: finished.message || PAYMENT_NOT_COMPLETED };
  }

  // Back from PayPal's approval page (no JavaScript needed): approved -> the API captures the order or
  // confirms the subscription (a second return or a reload pays once: the API's capture is idempotent);
  // cancelled -> the API releases the checkout. Either way nothing more is asked of PayPal here.
  let paypalFailure: string | null = null;
  const paypalReturn = paypalReturnOf(url);
  if (paypalReturn && token) {
    const { outcome, ...ids } = paypalReturn;
    const settled = await settlePayPal(api, outcome, ids);
    if (settled.paid) {
      const flow = await flowFor(request, planId);
      throw redirect(url.pathname, { headers: { "Set-Cookie": await writeFlow(request, "checkout", { ...flow, coupon: undefined, paidAt: Date.now() }) } });
    }
    if (settled.pending) throw await redirectWithSuccess(url.pathname, settled.message);
    if (settled.unavailable) throw await redirectWithError(url.pathname, settled.message);
    paypalFailure = settled.message;
  }

  // Back from a crypto invoice: what BitPay says about it now.
  let cryptoFailure: string | null = null;
  const cryptoId = url.searchParams.get("crypto");
  if (cryptoId && token) {
    const invoice = await api.get("/api/payments/crypto/invoices/{id}", { params: { path: { id: cryptoId } } });
    const here = url.pathname;
    if (!invoice.ok) throw await redirectWithError(here, invoice.code === "not_found" || invoice.code === "provider_off" ? "checkout.crypto.noInvoice" : "checkout.crypto.fetchFailed");
    const details = invoice.data.invoice_details;
    if (details.paid) {
      const flow = await flowFor(request, planId);
      throw redirect(here, { headers: { "Set-Cookie": await writeFlow(request, "checkout", { ...flow, coupon: undefined, paidAt: Date.now() }) } });
    }
    if (details.not_applied) {
      // Paid after another recurring plan was bought (one recurring subscription per account): kept on record, not applied.
      throw await redirectWithError(here, "checkout.crypto.notApplied");
    }
    if (details.exception_status === "paidPartial") {
      // What arrived, what is missing, and the two ways on; Billing's history has the links (pay the rest, ask for a refund).
      // Made here, with its amounts: in the page's language.
      const t = translatorOf(request);
      const { money } = formattersFor(languageOf(request));
      throw await redirectWithError(
        here,
        t(details.status === "new" ? "checkout.crypto.short.open" : "checkout.crypto.short.closed", {
          paid: money(details.amount_paid_cents ?? 0),
          total: money(details.discounted_price_cents),
          missing: money(details.amount_missing_cents ?? details.discounted_price_cents),
        }),
      );
    }
    // Expired unpaid: the page stays the checkout, the crypto panel open with the message, as PayPal's cancel.
    if (details.status === "expired" || details.status === "invalid") cryptoFailure = "checkout.crypto.expired";
    else throw await redirectWithSuccess(here, "checkout.crypto.received");
  }

  const flow = await flowFor(request, planId);
  // Sent to the hosted payment page, and its return never told this page how it ended (the answer lost,
  // or the API could not tell then): asked now, so a payment the webhook recorded shows its receipt.
  let confirming = false;
  if (token && flow.hostedSession && !flow.paidAt) {
    const outcome = await hostedOutcome(request, api, `${url.pathname}${url.search}`, flow, flow.hostedSession, { quiet: true });
    if (outcome) throw outcome;
    confirming = true;
  }
  // Paid for this plan within the hour: the receipt, and no payment forms (nothing to pay twice for).
  const paidWithinTheHour = Boolean(token && flow.paidAt && secondsLeft(flow.paidAt, RECEIPT_SECONDS) > 0);

  const { detail, gateway, me, cards, subscription, country } = await checkoutData(api, request, flow, planId, token, paidWithinTheHour ? undefined : flow.coupon);
  if (!detail.ok) {
    if (detail.code === "not_found" || detail.code === "validation_failed") throw new Response("Not Found", { status: 404 });
    throw serviceUnavailable();
  }
  if (!gateway.ok) throw serviceUnavailable();
  // The receipt needs the account: without it the page cannot say what was just bought, and must not
  // say "This is already your current plan" instead (the plan-change page): the 503 page, then a reload.
  if (paidWithinTheHour && me && !me.ok) throw serviceUnavailable();

  // The API's clock, not ours: in sandbox mode the test clock may have moved it.
  const formats = formattersFor(languageOf(request));
  const termEndsOn = formats.longDate(detail.data.term_ends_on);
  const quotes = detail.data.quotes;
  const receipt =
    paidWithinTheHour && me?.ok
      ? await loadReceipt(api, { plan: detail.data.plan_data, account: me.data, quotes, device: gateway.data.device.app }, { ...formats, t: translatorOf(request) })
      : null;
  // The coupon as the quotes applied it (one that can no longer be used is not in them).
  const applied = quotes[0]?.coupon_code ? { code: quotes[0].coupon_code, discount_amount_cents: quotes[0].discount_amount_cents } : null;

  // 'Payment Successful!' counts down over the receipt until the customer closes it (then it stays).
  const redirectIn = receipt && flow.paidAt && !url.searchParams.has(RECEIPT_PARAM) ? secondsLeft(flow.paidAt, SUCCESS_REDIRECT_SECONDS) : 0;
  const state: CheckoutState = {
    plan: shownPlan(detail.data.plan_data),
    accountEmail: me?.ok ? me.data.email : null,
    visitor: me?.ok ? null : visitorStep(flow),
    savedCards: cards?.ok ? cards.data : [],
    cardsFailed: Boolean(me?.ok && cards && !cards.ok),
    gateway: gateway.data,
    coupon: receipt ? null : applied,
    quotes: quotes.map(shownQuote),
    idempotencyKey: newIdempotencyKey(),
    paidRedirectIn: redirectIn > 0 ? redirectIn : null,
    receipt,
    notice: confirming
      ? HOSTED_CONFIRMING
      : url.searchParams.get("checkout") === "cancelled"
        ? "checkout.payment.cancelled"
        : null,
    confirming,
    authenticationFailure,
    paypalFailure,
    cryptoFailure,
    termEndsOn,
    country: receipt ? null : country,
  };
  return { state, subscription, token };
}

const answered = <T>(data: T): ApiResult<T> => ({ ok: true, status: 200, message: "", data });

/**
 * What the checkout shows from the API. Signed in, one call (/api/account/checkout), which also
 * checks the token as /api/me would and reads the active subscription the plan change needs. An API
 * without that endpoint, or a refusal of it (an unknown plan: 404), gets the calls it stands for, in
 * parallel, so each part fails as it always has (the plan's 404, the cards' notice). `subscription` is
 * undefined when it was not read.
 *
 * The quotes are taxed for the checkout's country (issue 35): the one chosen here is sent; otherwise
 * the API taxes for the saved billing country, else for `default_country`, the browser's (the United
 * States at the least): one call either way. A visitor's quotes are asked for that country.
 */
async function checkoutData(
  api: ReturnType<typeof createApiClient>,
  request: Request,
  flow: CheckoutFlow,
  planId: number,
  token: string | null,
  coupon: string | undefined,
) {
  const withCoupon = coupon ? { coupon } : {};
  const fallback = browserCountry(request);
  const chosen = chosenCountry(flow);
  if (token) {
    const countryQuery = chosen ? { country: chosen } : { default_country: fallback };
    const all = await api.get("/api/account/checkout", { params: { query: { plan_id: planId, ...withCoupon, ...countryQuery } } });
    if (all.ok) {
      const { gateway, user, saved_cards, subscription, ...detail } = all.data;
      const country: CheckoutCountry = { code: detail.quotes[0]?.country ?? chosen ?? fallback };
      return { detail: answered(detail), gateway: answered(gateway), me: answered(user), cards: answered(saved_cards), subscription, country };
    }
    // Unreachable, timed out or not the API answering: the 503 page now, not after a second wait.
    if (all.code === null) throw serviceUnavailable();
  }
  const [detail, gateway, me, cards] = await Promise.all([
    api.post("/api/plans/detail", { body: { planId, ...withCoupon } }),
    api.get("/api/payments/config"),
    token ? api.get("/api/me") : Promise.resolve(null),
    token ? api.post("/api/payments/payment-methods") : Promise.resolve(null),
  ]);
  const country: CheckoutCountry = { code: chosen ?? fallback };
  return { detail: mayBeTaxed(country.code) ? await taxedFor(api, planId, detail, country.code) : detail, gateway, me, cards, subscription: undefined, country };
}

/**
 * The plan's quotes taxed for `country` (POST /api/checkout/quote, one per method offered, in
 * parallel): the plan detail answers them for no country. The coupon is the one the detail applied.
 */
async function taxedFor<D extends { quotes: ApiQuote[] }>(
  api: ReturnType<typeof createApiClient>,
  planId: number,
  detail: ApiResult<D>,
  country: string,
): Promise<ApiResult<D>> {
  if (!detail.ok || detail.data.quotes.every((quote) => quote.country === country)) return detail;
  const coupon = detail.data.quotes[0]?.coupon_code;
  const quotes = await Promise.all(
    detail.data.quotes.map((quote) => api.post("/api/checkout/quote", { body: { planId, method: quote.method, country, ...(coupon ? { coupon } : {}) } })),
  );
  const taxed = quotes.flatMap((quote) => (quote.ok ? [quote.data] : []));
  // A price without the tax it will be charged would mislead: no page rather than a wrong one.
  if (taxed.length !== quotes.length) throw serviceUnavailable();
  return answered({ ...detail.data, quotes: taxed });
}

/** Said while a hosted payment's outcome cannot be read yet (the API or the gateway not answering). */
const HOSTED_CONFIRMING = "checkout.payment.confirming";

/**
 * How a hosted payment (Checkout Session `sessionId`) ended, as the API says, as the redirect that
 * shows it: paid, the receipt (paidAt); not paid or refused, the checkout with the message (the
 * session forgotten); the API not able to tell now, the page again with the session kept, so that the
 * next load asks again. `quiet` (a load of the page, not the return): a payment not made (the hosted
 * page left unpaid) is forgotten without a message, and a failure answers null (the page says it is
 * confirming).
 */
async function hostedOutcome(
  request: Request,
  api: ReturnType<typeof createApiClient>,
  here: string,
  flow: CheckoutFlow,
  sessionId: string,
  opts: { quiet?: boolean } = {},
): Promise<Response | null> {
  const completed = await api.post("/api/payments/checkout-session/complete", { body: { sessionId } });
  const save = (next: CheckoutFlow) => writeFlow(request, "checkout", next);
  if (completed.ok && completed.data.status === "paid") {
    return redirect(here, { headers: { "Set-Cookie": await save({ ...flow, coupon: undefined, hostedSession: undefined, paidAt: Date.now() }) } });
  }
  if (!completed.ok && completed.status >= 500) {
    if (opts.quiet) return null;
    return redirect(here, { headers: { "Set-Cookie": await save({ ...flow, hostedSession: sessionId }) } });
  }
  const forgotten = { headers: { "Set-Cookie": await save({ ...flow, hostedSession: undefined }) } };
  if (opts.quiet && completed.ok) return redirect(here, forgotten);
  return redirectWithError(here, completed.ok ? PAYMENT_NOT_COMPLETED : completed.message || STRIPE_FAILED, forgotten);
}

function visitorStep(flow: CheckoutFlow): VisitorStep {
  if (!flow.email || !flow.sentAt) {
    const email = flow.typedEmail ?? flow.lastSent?.email;
    return email ? { step: "email", email } : { step: "email" };
  }
  if (flow.code) return { step: "password", email: flow.email };
  return {
    step: "code",
    email: flow.email,
    sentAt: flow.sentAt,
    resendIn: secondsLeft(flow.sentAt, RESEND_SECONDS),
    expiresIn: secondsLeft(flow.sentAt, CODE_TTL_SECONDS),
  };
}

const PAYPAL_PENDING = "checkout.paypal.pending";

type PayPalOutcome =
  | { paid: true; pending?: false; unavailable?: false; message: string }
  | { paid: false; pending: boolean; unavailable: boolean; message: string };

/**
 * The end of a PayPal approval, for the checkout page and the JavaScript buttons' resource route
 * alike: 'return' completes it through the API, 'cancel' releases it. `message` is for the customer.
 */
export async function settlePayPal(
  api: ReturnType<typeof createApiClient>,
  outcome: "return" | "cancel",
  ids: PayPalReturn,
): Promise<PayPalOutcome> {
  if (outcome === "cancel") {
    const cancelled = await api.post("/api/payments/paypal/cancel", { body: ids });
    // Paid already (PayPal's cancel URL opened again after paying, e.g. from the history): nothing is
    // undone, and the page is the receipt.
    if (!cancelled.ok && cancelled.code === "invoice_paid") return { paid: true, message: cancelled.message };
    // Otherwise nothing was charged whatever the API answers (only an approved payment is captured).
    return { paid: false, pending: false, unavailable: !cancelled.ok && cancelled.status >= 500, message: PAYPAL_CANCELLED };
  }
  const completed = await api.post("/api/payments/paypal/complete", { body: ids });
  if (!completed.ok) {
    const unavailable = completed.status >= 500;
    return { paid: false, pending: false, unavailable, message: completed.message || PAYPAL_FAILED };
  }
  if (completed.data.status === "paid") return { paid: true, message: completed.message };
  if (completed.data.status === "cancelled") return { paid: false, pending: false, unavailable: false, message: PAYPAL_CANCELLED };
  return { paid: false, pending: true, unavailable: false, message: PAYPAL_PENDING };
}

const VISITOR_INTENTS = new Set(["email", "resend", "code", "password"]);

type ActionArgs = { request: Request; context: AppLoadContext; formData: FormData; planId: number };

// A UUID: Node draws it from a kept pool of random bytes, where randomBytes asks the system each time
// (every checkout page makes one key; issue 31's CPU bar).
function newIdempotencyKey(): string {
  return randomUUID();
}

/**
 * The idempotency key of one card payment: the page's key (one per rendering, renewed after a
 * decline) and the card together. The customer's next card is a new attempt, while the same card
 * posted twice (a double submit, a retry after a lost answer) is the same attempt and pays once
 * (issue 21). Without the page's key the API refuses as before.
 */
function attemptKey(pageKey: string, paymentMethodId: string): string {
  if (!pageKey) return "";
  return createHash("sha256").update(`${pageKey}\n${paymentMethodId}`).digest("base64url");
}

/** The API's refusals after which the gateway has finished the attempt and charged nothing. */
const ENDED_ATTEMPTS = new Set<ApiErrorCode>(["card_declined", "authentication_failed"]);

/**
 * What a payment the gateway ended without charging answers: as paymentFailure, with a new page key, so
 * that the next payment is a new attempt even with the same card.
 */
function endedAttemptFailure(form: string, message: string, status: number) {
  return data({ form, result: undefined, serverError: message, idempotencyKey: newIdempotencyKey() }, { status: failureStatus(status) });
}

/** What a failed payment answers: the message inline (and as a toast), the form kept. */
function paymentFailure(form: string, message: string, status: number) {
  return formFailure(form, null, message, status);
}

export async function checkoutAction(intent: string, { request, context, formData, planId }: ActionArgs) {
  const here = pathOf(request);
  const token = await getSessionToken(request);
  const api = createApiClient(request, context, token);
  const flow = await flowFor(request, planId);
  const save = (next: CheckoutFlow | undefined) => writeFlow(request, "checkout", next);
  // The email steps are a visitor's: a signed-in page has no such form to show their errors on.
  if (token && VISITOR_INTENTS.has(intent)) return redirect(here);

  switch (intent) {
    case "restart": {
      // Back to the email step, the address and the code sent to it kept (see CheckoutFlow.lastSent).
      const lastSent = flow.email && flow.sentAt ? { email: flow.email, sentAt: flow.sentAt } : flow.lastSent;
      return redirect(here, { headers: { "Set-Cookie": await save({ planId, coupon: flow.coupon, country: flow.country, lastSent }) } });
    }

    case "email": {
      const submission = parseSubmission(formData, CheckoutEmailSchema);
      if (submission.status !== "success") return formFailure("email", submission);
      const email = submission.value.email.toLowerCase();
      // The same address again while the code sent to it is valid: back to that code, nothing sent.
      const lastSent = flow.lastSent;
      if (lastSent?.email === email && secondsLeft(lastSent.sentAt, CODE_TTL_SECONDS) > 0) {
        const cookie = await save({ planId, coupon: flow.coupon, country: flow.country, email, sentAt: lastSent.sentAt });
        return redirectWithSuccess(here, "checkout.email.enterCode", { headers: { "Set-Cookie": cookie } });
      }
      const usable = await api.post("/api/anonymous/subscription/email-is-exists", { body: { email } });
      if (!usable.ok) {
        return formFailure("email", submission, usable.status >= 500 ? "checkout.email.unableToVerify" : usable.message || "checkout.email.notValid", usable.status);
      }
      const sent = await api.post("/api/user/temp-signup", { body: { email, isCheckout: true, plan_id: String(planId) } });
      if (!sent.ok) return formFailure("email", submission, sent.message || REQUEST_FAILED, sent.status);
      const cookie = await save({ planId, coupon: flow.coupon, country: flow.country, email, sentAt: Date.now() });
      return redirectWithSuccess(here, sent.message || "checkout.verify.sent", { headers: { "Set-Cookie": cookie } });
    }

    case "resend": {
      if (!flow.email) return redirect(here);
      const sent = await api.post("/api/user/temp-signup", { body: { email: flow.email, isCheckout: true, plan_id: String(planId) } });
      if (!sent.ok) return formFailure("code", parseSubmission(formData, CheckoutCodeSchema), sent.message || REQUEST_FAILED, sent.status);
      const cookie = await save({ ...flow, code: undefined, sentAt: Date.now() });
      return redirectWithSuccess(here, "checkout.verify.resent", { headers: { "Set-Cookie": cookie } });
    }

    case "code": {
      if (!flow.email) return redirect(here);
      const submission = parseSubmission(formData, CheckoutCodeSchema);
      if (submission.status !== "success") return formFailure("code", submission);
      const code = submission.value.verification_code;
      const verified = await api.post("/api/user/verify-temp-code", { body: { email: flow.email, verification_code: code } });
      if (!verified.ok) {
        return formFailure("code", submission, verified.status >= 500 ? "checkout.unexpectedError" : verified.message || INVALID_CODE, verified.status);
      }
      return redirect(here, { headers: { "Set-Cookie": await save({ ...flow, code }) } });
    }

    case "password": {
      const submission = parseSubmission(formData, SignupPasswordSchema);
      if (submission.status !== "success") return formFailure("password", submission);
      if (!flow.email || !flow.code) return redirect(here);
      const registered = await api.post("/api/user/checkout-register", {
        body: {
          email: flow.email,
          password: submission.value.password,
          password_confirmation: submission.value.confirmPassword,
          verification_code: flow.code,
          platform: "Web Browser",
          // The language the customer paid in: the account's emails (the receipt first) use it (issue 36).
          language: languageOf(request),
        },
      });
      if (!registered.ok && registered.code && CODE_REFUSED.has(registered.code)) {
        // The code expired or was used meanwhile: back to the code step, where it can be resent.
        const cookie = await save({ ...flow, code: undefined });
        return redirectWithError(here, registered.message || INVALID_CODE, { headers: { "Set-Cookie": cookie } });
      }
      if (!registered.ok) {
        return formFailure("password", submission, registered.status >= 500 ? "checkout.somethingWrong" : registered.message || REQUEST_FAILED, registered.status);
      }
      // The new account's billing country is the checkout's (chosen, else the browser's): its quotes
      // are taxed as the visitor's were. Should it not be saved now, the payment saves it.
      await saveCheckoutCountry(createApiClient(request, context, registered.data.token), request, flow);
      const headers = new Headers();
      headers.append("Set-Cookie", await commitTokenSession(request, registered.data.token));
      // The account's language comes with it (or the account takes the page's): issue 36.
      const languageSet = await languageOnSignIn(request, context, registered.data.token, registered.data.user);
      if (languageSet) headers.append("Set-Cookie", languageSet);
      appendDeviceCookie(headers, request);
      headers.append("Set-Cookie", await save({ planId, coupon: flow.coupon, country: flow.country }));
      return redirectWithSuccess(here, "checkout.verify.success", { headers });
    }

    case "coupon": {
      const submission = parseSubmission(formData, CouponSchema);
      if (submission.status !== "success") return formFailure("coupon", submission);
      const code = submission.value.code;
      const quote = await api.post("/api/coupons/apply", { body: { code, planId } });
      if (!quote.ok) {
        const message = quote.fieldErrors.code?.[0] ?? quote.message ?? COUPON_INVALID;
        // The coupon is no secret: the refused code stays in its field.
        return formFailure("coupon", submission, null, quote.status, { fieldErrors: { code: [message] }, hideFields: [] });
      }
      const cookie = await save({ ...flow, coupon: quote.data.code });
      return redirectWithSuccess(here, quote.message || "checkout.coupon.applied", { headers: { "Set-Cookie": cookie } });
    }

    // The order summary's 'Country' (issue 35): the quotes follow it. Kept in the flow until the payment
    // saves it to the account: changing it back and forth must not drop a saved VAT number (the API
    // drops one when the saved country changes).
    case "country": {
      const submission = parseSubmission(formData, CheckoutCountrySchema);
      const refused = (status: number) =>
        formFailure("country", submission, null, status, { fieldErrors: { country: [CHECKOUT_COUNTRY_MESSAGE] }, hideFields: [] });
      if (submission.status !== "success") return refused(400);
      const country = submission.value.country.toUpperCase();
      if (!isKnownCountry(country)) return refused(422);
      // A visitor's email typed and not yet sent came with it (no JavaScript): shown again, not lost.
      const typed = token ? "" : String(formData.get("email") ?? "").trim().slice(0, 254);
      const cookie = await save({ ...flow, country, typedEmail: typed || flow.typedEmail });
      // With JavaScript (a fetcher): no navigation; the page's data reloads with the new quotes.
      if (formData.get("js") === "1") return data({ form: "country", result: undefined, serverError: null }, { headers: { "Set-Cookie": cookie } });
      return redirect(here, { headers: { "Set-Cookie": cookie } });
    }

    case "coupon-clear":
      return redirect(here, { headers: { "Set-Cookie": await save({ ...flow, coupon: undefined }) } });

    case "pay-card":
    case "pay-saved": {
      if (!token) return redirect(here);
      const paymentMethodId = String(formData.get("paymentMethodId") ?? "").trim();
      const key = attemptKey(String(formData.get("idempotency_key") ?? ""), paymentMethodId);
      if (!paymentMethodId) return paymentFailure(intent, "checkout.card.incomplete", 400);
      const [me, unsaved] = await Promise.all([api.get("/api/me"), saveCheckoutCountry(api, request, flow)]);
      if (!me.ok) throw serviceUnavailable();
      if (unsaved) return paymentFailure(intent, unsaved, 503);
      // With JavaScript the challenge is shown on the page (live: Stripe.js; the sandbox: a dialog);
      // without it, the browser goes to the challenge page, which comes back here.
      const scripted = formData.get("js") === "1";
      const returnUrl = scripted ? undefined : `${here}?authenticated=${intent}`;
      const paid = await api.post("/api/payments/card", {
        body: {
          ...(returnUrl ? { return_url: returnUrl } : {}),
          paymentMethodId,
          planId,
          type: intent === "pay-saved" ? "saved-card" : "new-card",
          email: me.data.email,
          idempotency_key: key,
          ...(flow.coupon ? { coupon: flow.coupon } : {}),
        },
      });
      if (!paid.ok) {
        const message = paid.message || STRIPE_FAILED;
        // A decline ends the attempt having charged nothing: the next press, even with the same card
        // (the bank may say yes this time), is a new attempt that reaches the gateway (issue 33). Any
        // other failure (a lost answer, the gateway down) keeps the key: a retry then charges at most once.
        if (paid.code !== null && ENDED_ATTEMPTS.has(paid.code)) return endedAttemptFailure(intent, message, paid.status);
        return paymentFailure(intent, message, paid.status);
      }
      if (paid.data.status === "requires_action") {
        const challenge = paid.data;
        // Without JavaScript the browser goes to the bank's challenge page and comes back to this page.
        if (!scripted && challenge.redirect_url) return redirect(challenge.redirect_url, 303);
        return data({
          form: intent,
          result: undefined,
          serverError: null,
          authentication: {
            clientSecret: challenge.client_secret ?? "",
            url: challenge.authentication_url ?? null,
            paymentIntent: challenge.payment_intent ?? "",
            subscription: challenge.subscription_id ?? "",
          },
        });
      }
      const cookie = await save({ planId, paidAt: Date.now() });
      return redirect(here, { headers: { "Set-Cookie": cookie } });
    }

    // The challenge dialog closed (completed, failed or abandoned): the API finishes the attempt.
    case "complete-authentication": {
      if (!token) return redirect(here);
      const form = String(formData.get("form") ?? "");
      const subscription = String(formData.get("subscription") ?? "");
      const finished = await api.post("/api/payments/card/complete-authentication", {
        body: { payment_intent: String(formData.get("payment_intent") ?? ""), ...(subscription ? { subscription } : {}) },
      });
      const shownOn = CARD_FORMS.has(form) ? form : "pay-card";
      // The attempt is over and charged nothing (its stored answer is the challenge just failed).
      const failed = (message: string, status: number) => endedAttemptFailure(shownOn, message, status);
      if (!finished.ok) return failed(finished.message || STRIPE_FAILED, finished.status);
      if (finished.data.status !== "paid") return failed(PAYMENT_NOT_COMPLETED, 409);
      return redirect(here, { headers: { "Set-Cookie": await save({ planId, paidAt: Date.now() }) } });
    }

    case "crypto": {
      if (!token) return redirect(here);
      const [me, unsaved] = await Promise.all([api.get("/api/me"), saveCheckoutCountry(api, request, flow)]);
      if (!me.ok) throw serviceUnavailable();
      if (unsaved) return paymentFailure("crypto", unsaved, 503);
      const invoice = await api.post("/api/payments/crypto/invoice", {
        body: {
          planId,
          amount: String(formData.get("amount") ?? ""),
          currency: "USD",
          email: me.data.email,
          ...(flow.coupon ? { coupon: flow.coupon } : {}),
        },
      });
      if (!invoice.ok) return paymentFailure("crypto", invoice.message || "checkout.crypto.failed", invoice.status);
      // BitPay's page is not one of the portal's routes: the browser loads it as a document.
      return redirectDocument(invoice.data.invoiceUrl);
    }

    // PayPal without JavaScript: the API opens an order (the 5-year plan) or a subscription (recurring
    // plans), and the browser goes to PayPal's approval page, which returns to this page (the loader).
    case "paypal": {
      if (!token) return redirect(here);
      const unsaved = await saveCheckoutCountry(api, request, flow);
      if (unsaved) return paymentFailure("paypal", unsaved, 503);
      const started = await api.post("/api/payments/paypal/checkout", {
        body: { planId, return_path: here, idempotency_key: paypalKey(String(formData.get("idempotency_key") ?? "")), ...(flow.coupon ? { coupon: flow.coupon } : {}) },
      });
      if (!started.ok) return paymentFailure("paypal", started.message || PAYPAL_FAILED, started.status);
      return redirectDocument(started.data.approve_url);
    }

    case "hosted": {
      if (!token) return redirect(here);
      const unsaved = await saveCheckoutCountry(api, request, flow);
      if (unsaved) return paymentFailure("hosted", unsaved, 503);
      const key = String(formData.get("idempotency_key") ?? "");
      const session = await api.post("/api/payments/checkout-session", {
        body: { planId, return_path: here, idempotency_key: key, ...(flow.coupon ? { coupon: flow.coupon } : {}) },
      });
      if (!session.ok) return paymentFailure("hosted", session.message || STRIPE_FAILED, session.status);
      // The session is remembered: if its return never reaches this page, the next load asks how it ended.
      return redirectDocument(session.data.url, { headers: { "Set-Cookie": await save({ ...flow, planId, hostedSession: session.data.id }) } });
    }

    default:
      throw new Response("Unknown form", { status: 400 });
  }
}
