import { markInvoicePaid } from "./billing";
import { CARD_MESSAGES } from "./cards";
import type { Ops } from "./context";
import { returnUrlOf } from "./authentication";
import type { SbPaymentIntent, SbSetupIntent } from "./objects";
import { chargeIntent, succeedSetupIntent } from "./payments";

/*
 * The answer to a 3-D Secure challenge (the page at /dev/stripe/authenticate/:id, browser.ts).
 * Completed: the intent proceeds (a PaymentIntent charges the card, and pays its invoice; a
 * SetupIntent saves it). Failed: the intent goes back to requires_payment_method with Stripe's error.
 */

export type ChallengeIntent = { kind: "payment_intent"; intent: SbPaymentIntent } | { kind: "setup_intent"; intent: SbSetupIntent };

/** The intent a challenge id names, when its client secret matches. */
export async function challengeIntent(ops: Pick<Ops, "store">, id: string, clientSecret: string): Promise<ChallengeIntent | null> {
  const found: ChallengeIntent | null = id.startsWith("seti_")
    ? await ops.store.get("setup_intent", id).then((intent) => (intent ? { kind: "setup_intent" as const, intent } : null))
    : await ops.store.get("payment_intent", id).then((intent) => (intent ? { kind: "payment_intent" as const, intent } : null));
  return found && found.intent.client_secret === clientSecret ? found : null;
}

export interface ChallengeOutcome {
  target: ChallengeIntent;
  /** The return_url of the confirm, if it gave one. */
  returnUrl: string | null;
  succeeded: boolean;
}

/** Answers the challenge (once: an intent no longer in requires_action is left as it is). */
export async function answerChallenge(ops: Ops, id: string, clientSecret: string, complete: boolean): Promise<ChallengeOutcome | null> {
  const target = await challengeIntent(ops, id, clientSecret);
  if (!target) return null;
  const returnUrl = returnUrlOf(target.intent.next_action);
  if (target.intent.status !== "requires_action") {
    return { target, returnUrl, succeeded: target.intent.status === "succeeded" };
  }
  if (target.kind === "setup_intent") {
    const intent = target.intent;
    const pm = intent.payment_method ? await ops.store.get("payment_method", intent.payment_method) : undefined;
    if (complete && pm) {
      const done = await succeedSetupIntent(ops, intent, pm);
      return { target: { kind: "setup_intent", intent: done }, returnUrl, succeeded: true };
    }
    intent.status = "requires_payment_method";
    intent.next_action = null;
    intent.last_setup_error = {
      type: "invalid_request_error",
      code: "setup_intent_authentication_failure",
      message: CARD_MESSAGES.authenticationFailed,
      doc_url: "https://docs.stripe.com/error-codes/setup-intent-authentication-failure",
    };
    await ops.store.save("setup_intent", intent);
    await ops.emit("setup_intent.setup_failed", intent);
    return { target: { kind: "setup_intent", intent }, returnUrl, succeeded: false };
  }
  const intent = target.intent;
  const pm = intent.payment_method ? await ops.store.get("payment_method", intent.payment_method) : undefined;
  if (complete && pm) {
    const result = await chargeIntent(ops, { ...intent, next_action: null }, pm, { offSession: false, authenticated: true });
    if (result.ok && intent._invoice) {
      const invoice = await ops.store.get("invoice", intent._invoice);
      if (invoice?.status === "open") {
        invoice.attempted = true;
        await markInvoicePaid(ops, invoice, pm.id);
      }
    } else if (!result.ok && intent._invoice) {
      const invoice = await ops.store.get("invoice", intent._invoice);
      if (invoice?.status === "open") await ops.emit("invoice.payment_failed", invoice);
    }
    return { target: { kind: "payment_intent", intent: result.intent }, returnUrl, succeeded: result.ok };
  }
  const failed: SbPaymentIntent = {
    ...intent,
    status: "requires_payment_method",
    next_action: null,
    last_payment_error: {
      type: "invalid_request_error",
      code: "payment_intent_authentication_failure",
      message: CARD_MESSAGES.authenticationFailed,
      doc_url: "https://docs.stripe.com/error-codes/payment-intent-authentication-failure",
      ...(pm ? { payment_method: await ops.render(pm) } : {}),
    },
  };
  await ops.store.save("payment_intent", failed);
  await ops.emit("payment_intent.payment_failed", failed);
  return { target: { kind: "payment_intent", intent: failed }, returnUrl, succeeded: false };
}

/** The return_url with Stripe's query parameters added. */
export function returnWithParams(returnUrl: string, outcome: ChallengeOutcome): string {
  const url = new URL(returnUrl);
  const { kind, intent } = outcome.target;
  url.searchParams.set(kind, intent.id);
  url.searchParams.set(`${kind}_client_secret`, intent.client_secret);
  url.searchParams.set("redirect_status", outcome.succeeded ? "succeeded" : "failed");
  return url.toString();
}
