import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import type { Clock } from "../../platform/clock";
import { CARD_MESSAGES, checkCard, declineError, declineFor, parseExpiry } from "./cards";
import { answerChallenge, challengeIntent, returnWithParams } from "./challenge";
import { type CardForm, completeCheckoutSession, returnToCheckoutSession, sessionState, successRedirect } from "./checkout";
import { confirmInvoiceIntent, payInvoice } from "./billing";
import type { Runner } from "./context";
import { createPaymentMethod, paymentMethodCreateParams } from "./customers";
import { SandboxError } from "./errors";
import { formatMoney, priceText } from "./money";
import type { SbCheckoutSession, SbInvoice } from "./objects";
import {
  type CardField,
  type CardFormState,
  EMPTY_FORM,
  STYLESHEET,
  STYLESHEET_PATH,
  type SummaryRow,
  renderChallengePage,
  renderCheckoutPage,
  renderInvoicePage,
  renderMessagePage,
} from "./pages";
import { parse } from "./params";
import type { Renderer } from "./render";
import type { SandboxStore } from "./store";
import { isoDate, unixSeconds } from "./time";

/*
 * What the browser reaches on the portal's origin, under /dev/stripe: the hosted Checkout page, the
 * hosted invoice page, and the tokenizer the inline card form calls instead of Stripe.js.
 * Forms post back to the same URL (post/redirect/get on success).
 */

export interface BrowserDeps {
  store: SandboxStore;
  renderer: Renderer;
  runner: Runner;
  clock: Clock;
  publishableKeyPrefix: string;
  /** The account's public website, linked from the hosted invoice page. */
  businessUrl: string;
  logger: Pick<Console, "error">;
}

const BLANK_MESSAGES: Record<CardField, string> = {
  card_number: CARD_MESSAGES.incompleteNumber,
  card_expiry: CARD_MESSAGES.incompleteExpiry,
  card_cvc: "Your card's security code is incomplete.",
  billing_name: "Please enter the cardholder name",
  billing_postal_code: "Please enter the postal code",
};
const FIELDS = Object.keys(BLANK_MESSAGES) as CardField[];
const BAD_EXPIRY = "Enter the expiry date as MM / YY.";

/** Which form field a card_error's `param` is about. */
const FIELD_OF_PARAM: Record<string, CardField> = {
  number: "card_number",
  exp_month: "card_expiry",
  exp_year: "card_expiry",
  cvc: "card_cvc",
};

const DANGEROUS_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * A body parsed flat (`{"card[number]": "…"}`, by a server-wide urlencoded parser with
 * extended: false) nested as qs would have (`{card: {number: "…"}}`). Nested bodies pass unchanged.
 */
export function nestBrackets(body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body === null || typeof body !== "object") return out;
  for (const [key, value] of Object.entries(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    const path = match ? [match[1] ?? "", ...[...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? "")] : [key];
    if (path.some((part) => DANGEROUS_KEYS.has(part))) continue;
    let node = out;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      node[part] = next !== null && typeof next === "object" ? next : {};
      node = node[part] as Record<string, unknown>;
    }
    node[path[path.length - 1] ?? key] = value;
  }
  return out;
}

function formValues(body: unknown): Partial<Record<CardField, string>> {
  const source = (body ?? {}) as Record<string, unknown>;
  const values: Partial<Record<CardField, string>> = {};
  for (const field of FIELDS) {
    const value = source[field];
    if (typeof value === "string") values[field] = value.trim().slice(0, 200);
  }
  return values;
}

/** The card form, checked for blanks and the expiry's format; null fields answer 422. */
function readCardForm(values: Partial<Record<CardField, string>>): { card: CardForm } | { errors: Partial<Record<CardField, string>> } {
  const errors: Partial<Record<CardField, string>> = {};
  for (const field of FIELDS) if (!values[field]) errors[field] = BLANK_MESSAGES[field];
  const expiry = values.card_expiry ? parseExpiry(values.card_expiry) : null;
  if (values.card_expiry && !expiry) errors.card_expiry = BAD_EXPIRY;
  if (Object.keys(errors).length > 0 || !expiry) return { errors };
  return {
    card: {
      number: values.card_number ?? "",
      expMonth: expiry.month,
      expYear: expiry.year,
      cvc: values.card_cvc ?? "",
      name: values.billing_name ?? "",
      postalCode: values.billing_postal_code ?? "",
    },
  };
}

/** A card_error as the form shows it: next to its field, or above the form (a decline, 402). */
function cardErrorState(error: SandboxError, values: CardFormState["values"]): { status: number; form: CardFormState } {
  const field = error.body.param ? FIELD_OF_PARAM[error.body.param] : undefined;
  if (field) return { status: 422, form: { values, fieldErrors: { [field]: error.body.message }, formError: null } };
  return { status: error.status === 402 ? 402 : 400, form: { values, fieldErrors: {}, formError: error.body.message } };
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set("Cache-Control", "no-store").type("html").send(html);
}

function notFoundPage(res: Response): void {
  sendPage(
    res,
    404,
    renderMessagePage({ title: "Page not found (sandbox)", message: "There is no such payment page in the Stripe sandbox.", link: null }),
  );
}

export function createBrowserRouter(deps: BrowserDeps): Router {
  const { store, runner } = deps;
  const router = express.Router();
  const parseForm = express.urlencoded({ extended: true, limit: "16kb", parameterLimit: 50 });
  const parseJson = express.json({ limit: "16kb" });
  const now = () => unixSeconds(deps.clock.now());

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.set("Cache-Control", "public, max-age=300").type("css").send(STYLESHEET);
  });

  // Hosted Checkout ------------------------------------------------------------------------------

  async function checkoutView(session: SbCheckoutSession, form: CardFormState) {
    const item = session.line_items.data[0];
    const currency = session.currency ?? "usd";
    const rows: SummaryRow[] = [];
    if (item) rows.push({ label: "Subtotal", amount: formatMoney(item.amount_subtotal, currency) });
    for (const discount of session.discounts) {
      const couponId = discount.coupon ?? (discount.promotion_code ? (await store.get("promotion_code", discount.promotion_code))?.promotion.coupon : null);
      const coupon = couponId ? await store.get("coupon", couponId) : undefined;
      if (coupon) rows.push({ label: `Discount (${coupon.name ?? coupon.id})`, amount: `−${formatMoney(session.total_details.amount_discount, currency)}` });
    }
    const total = formatMoney(session.amount_total ?? 0, currency);
    return renderCheckoutPage({
      action: `/dev/stripe/checkout/${encodeURIComponent(session.id)}`,
      item: item ? { name: item.description, quantity: item.quantity, price: priceText(item.price) } : null,
      rows,
      total: { label: session.mode === "subscription" ? "Total due today" : "Total", amount: session.mode === "setup" ? formatMoney(0, currency) : total },
      email: session.customer_email ?? (session.customer ? ((await store.get("customer", session.customer))?.email ?? null) : null),
      submitLabel: session.mode === "setup" ? "Save card" : `Pay ${total}`,
      cancelUrl: session.cancel_url,
      form,
    });
  }

  function closedPage(res: Response, session: SbCheckoutSession, status: number): void {
    if (session.status === "complete") {
      sendPage(res, status, renderMessagePage({
        title: "Payment complete (sandbox)",
        message: "This checkout session is complete: it has been paid.",
        link: { href: successRedirect(session), text: "Continue" },
      }));
      return;
    }
    sendPage(res, status, renderMessagePage({
      title: "Checkout expired (sandbox)",
      message: "This checkout session has expired. Nothing was charged; start the payment again from the site.",
      link: session.cancel_url ? { href: session.cancel_url, text: "Return to the site" } : null,
    }));
  }

  router.get("/dev/stripe/checkout/:id", async (req, res, next) => {
    try {
      const session = await store.get("checkout_session", req.params.id);
      if (!session) return notFoundPage(res);
      if (sessionState(session, now()) !== "open") return closedPage(res, session, 200);
      sendPage(res, 200, await checkoutView(session, EMPTY_FORM));
    } catch (error) {
      next(error);
    }
  });

  router.post("/dev/stripe/checkout/:id", parseForm, async (req, res, next) => {
    try {
      const id = req.params.id;
      const session = await store.get("checkout_session", id);
      if (!session) return notFoundPage(res);
      const values = formValues(req.body);
      const read = readCardForm(values);
      if ("errors" in read) {
        if (session.status === "complete") return res.redirect(303, successRedirect(session));
        return sendPage(res, 422, await checkoutView(session, { values, fieldErrors: read.errors, formError: null }));
      }
      try {
        const outcome = await runner.run((ops) => completeCheckoutSession(ops, id, read.card));
        if (outcome.kind === "paid") return res.redirect(303, successRedirect(outcome.session));
        if (outcome.kind === "authenticate") return res.redirect(303, outcome.url);
        return closedPage(res, outcome.session, 409);
      } catch (error) {
        if (!(error instanceof SandboxError) || error.body.type !== "card_error") throw error;
        const shown = cardErrorState(error, values);
        return sendPage(res, shown.status, await checkoutView(session, shown.form));
      }
    } catch (error) {
      next(error);
    }
  });

  // Back from 3-D Secure: the session is paid now (then success_url), or the page says why not.
  router.get("/dev/stripe/checkout/:id/return", async (req, res, next) => {
    try {
      const id = req.params.id;
      const session = await store.get("checkout_session", id);
      if (!session) return notFoundPage(res);
      try {
        const outcome = await runner.run((ops) => returnToCheckoutSession(ops, id));
        if (outcome.kind === "paid") return res.redirect(303, successRedirect(outcome.session));
        return closedPage(res, outcome.session, 409);
      } catch (error) {
        if (!(error instanceof SandboxError) || error.body.type !== "card_error") throw error;
        return sendPage(res, 402, await checkoutView(session, { values: {}, fieldErrors: {}, formError: error.body.message }));
      }
    } catch (error) {
      next(error);
    }
  });

  // Hosted invoice -------------------------------------------------------------------------------

  const STATUS_LABELS: Record<SbInvoice["status"], string> = {
    draft: "Draft",
    open: "Open",
    paid: "Paid",
    uncollectible: "Uncollectible",
    void: "Void",
  };

  async function invoiceView(invoice: SbInvoice, form: CardFormState) {
    const rows: SummaryRow[] = invoice.lines.data.map((line) => ({ label: line.description, amount: formatMoney(line.amount, invoice.currency) }));
    for (const discount of invoice.total_discount_amounts) {
      const stored = await store.get("discount", discount.discount);
      const coupon = stored ? await store.get("coupon", stored.source.coupon) : undefined;
      rows.push({ label: `Discount (${coupon?.name ?? coupon?.id ?? "coupon"})`, amount: `−${formatMoney(discount.amount, invoice.currency)}` });
    }
    const total = formatMoney(invoice.total, invoice.currency);
    return renderInvoicePage({
      number: invoice.number,
      date: isoDate(invoice.created),
      email: invoice.customer_email,
      status: STATUS_LABELS[invoice.status],
      rows,
      total: { label: "Total", amount: total },
      businessUrl: deps.businessUrl,
      pay:
        invoice.status === "open"
          ? { action: `/dev/stripe/invoices/${encodeURIComponent(invoice.id)}`, submitLabel: `Pay ${formatMoney(invoice.amount_remaining, invoice.currency)}`, form }
          : null,
    });
  }

  router.get("/dev/stripe/invoices/:id", async (req, res, next) => {
    try {
      const invoice = await store.get("invoice", req.params.id);
      if (!invoice) return notFoundPage(res);
      sendPage(res, 200, await invoiceView(invoice, EMPTY_FORM));
    } catch (error) {
      next(error);
    }
  });

  router.post("/dev/stripe/invoices/:id", parseForm, async (req, res, next) => {
    try {
      const id = req.params.id;
      const invoice = await store.get("invoice", id);
      if (!invoice) return notFoundPage(res);
      const back = `/dev/stripe/invoices/${encodeURIComponent(id)}`;
      if (invoice.status !== "open") return res.redirect(303, back);
      const values = formValues(req.body);
      const read = readCardForm(values);
      if ("errors" in read) return sendPage(res, 422, await invoiceView(invoice, { values, fieldErrors: read.errors, formError: null }));
      try {
        const challenge = await runner.run(async (ops): Promise<string | null> => {
          const current = await ops.store.require("invoice", id);
          if (current.status !== "open") return null;
          const { card } = read;
          const checked = checkCard({ number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc }, ops.nowDate);
          // A refused card is refused before anything is saved, as on the Checkout page.
          const decline = declineFor({ brand: checked.test.brand, last4: checked.test.last4, exp_month: checked.exp_month, exp_year: checked.exp_year }, ops.nowDate);
          if (decline) throw declineError(decline);
          const pm = await createPaymentMethod(ops, {
            type: "card",
            card: { number: card.number, exp_month: String(card.expMonth), exp_year: String(card.expYear), cvc: card.cvc },
            billing_details: { name: card.name, address: { postal_code: card.postalCode } },
          });
          // The customer is here: a card that asks for 3-D Secure goes through the challenge, which pays the invoice and comes back.
          const intentId = current.payments.data[0]?.payment.payment_intent;
          const intent = intentId ? await ops.store.require("payment_intent", intentId) : null;
          if (!intent) {
            // Nothing to charge (a free invoice): paying it marks it paid.
            await payInvoice(ops, id, { payment_method: pm.id });
            return null;
          }
          const after = await confirmInvoiceIntent(ops, intent, { payment_method: pm.id, return_url: `${ops.publicUrl}${back}` });
          return after.status === "requires_action" && after.next_action?.type === "redirect_to_url" ? after.next_action.redirect_to_url.url : null;
        });
        return res.redirect(303, challenge ?? back);
      } catch (error) {
        if (!(error instanceof SandboxError) || error.body.type !== "card_error") throw error;
        const shown = cardErrorState(error, values);
        return sendPage(res, shown.status, await invoiceView(invoice, shown.form));
      }
    } catch (error) {
      next(error);
    }
  });

  // 3-D Secure challenge -------------------------------------------------------------------------

  /** The challenge may be shown in a frame of the portal's own pages (Stripe.js shows it in a modal). */
  function challengeHeaders(res: Response): void {
    res.set("X-Frame-Options", "SAMEORIGIN");
    res.set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self' http: https:; frame-ancestors 'self'");
  }

  const clientSecretOf = (req: Request) => (typeof req.query.client_secret === "string" ? req.query.client_secret : "");

  router.get("/dev/stripe/authenticate/:id", async (req, res, next) => {
    try {
      challengeHeaders(res);
      const found = await challengeIntent({ store }, req.params.id, clientSecretOf(req));
      if (!found) return notFoundPage(res);
      const { intent } = found;
      if (intent.status !== "requires_action") {
        const ok = intent.status === "succeeded";
        return sendPage(res, 200, renderMessagePage({
          title: ok ? "Authentication complete" : "Authentication failed",
          message: ok ? "This payment has been authenticated. You can close this page." : "This payment could not be authenticated.",
          link: null,
        }));
      }
      const pm = intent.payment_method ? await store.get("payment_method", intent.payment_method) : undefined;
      const card = pm ? `the card ending in ${pm.card.last4}` : "your card";
      const what = found.kind === "payment_intent" ? `pay ${formatMoney(found.intent.amount, found.intent.currency)}` : "save this card";
      const action = `/dev/stripe/authenticate/${encodeURIComponent(intent.id)}?client_secret=${encodeURIComponent(intent.client_secret)}`;
      sendPage(res, 200, renderChallengePage({ action, what, card }));
    } catch (error) {
      next(error);
    }
  });

  router.post("/dev/stripe/authenticate/:id", parseForm, async (req, res, next) => {
    try {
      challengeHeaders(res);
      const complete = (req.body as { result?: unknown } | undefined)?.result === "complete";
      const outcome = await runner.run((ops) => answerChallenge(ops, req.params.id, clientSecretOf(req), complete));
      if (!outcome) return notFoundPage(res);
      if (outcome.returnUrl) return res.redirect(303, returnWithParams(outcome.returnUrl, outcome));
      sendPage(res, 200, renderMessagePage({
        title: outcome.succeeded ? "Authentication complete" : "Authentication failed",
        message: outcome.succeeded ? "The payment has been authenticated. You can close this page." : "The payment was not authenticated.",
        link: null,
      }));
    } catch (error) {
      next(error);
    }
  });

  // The inline card form's tokenizer (the stand-in for Stripe.js's createPaymentMethod) ---------

  router.post("/dev/stripe/v1/payment_methods", (req: Request, res: Response, next) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get("authorization") ?? "")?.[1];
    res.set("Cache-Control", "no-store");
    if (!bearer?.startsWith(deps.publishableKeyPrefix)) {
      res.status(401).json({
        error: { type: "invalid_request_error", message: "This endpoint takes the sandbox's publishable key as its Bearer token." },
      });
      return;
    }
    next();
  }, parseForm, parseJson, async (req, res) => {
    try {
      const p = parse(paymentMethodCreateParams, nestBrackets(req.body));
      const body = await runner.run(async (ops) => deps.renderer.render("payment_method", await createPaymentMethod(ops, p)));
      res.json(body);
    } catch (error) {
      if (error instanceof SandboxError) {
        res.status(error.status).json({ error: error.body });
        return;
      }
      deps.logger.error("Stripe sandbox: tokenizing a card failed:", error);
      res.status(500).json({ error: { type: "api_error", message: "An error occurred in the Stripe sandbox." } });
    }
  });

  // Any other path (including other /dev/stripe paths) is the portal's: next().
  // Only errors raised above reach this: a body that does not parse, or a failure of the sandbox.
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const status = typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) deps.logger.error(`Stripe sandbox: ${req.method} ${req.path} failed:`, error);
    if (req.path.startsWith("/dev/stripe/v1/")) {
      res.status(status).json({ error: { type: status === 500 ? "api_error" : "invalid_request_error", message: status === 500 ? "An error occurred in the Stripe sandbox." : "Invalid request body." } });
      return;
    }
    sendPage(res, status, renderMessagePage({ title: "Something went wrong (sandbox)", message: status === 500 ? "The Stripe sandbox could not handle this request." : "The request could not be read.", link: null }));
  };
  router.use(onError);
  return router;
}
