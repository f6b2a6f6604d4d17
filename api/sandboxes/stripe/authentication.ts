import { authenticationOf } from "./cards";
import type { Ops } from "./context";
import type { SbNextAction, SbPaymentMethod } from "./objects";
import type { SandboxStore } from "./store";

/*
 * 3-D Secure bookkeeping. Which PaymentMethods have been set up for later use (authenticated by a
 * SetupIntent, or by a PaymentIntent that saves the card) is the sandbox's own knowledge, kept in a
 * bookkeeping row (`authenticated:<pm>`), not in the Stripe objects: Stripe does not show it either.
 */

const rowId = (pm: string) => `authenticated:${pm}`;

export async function isSetUp(store: SandboxStore, pm: string): Promise<boolean> {
  return (await store.getRow(rowId(pm))) !== undefined;
}

/** Records that `pm` was authenticated for later off-session use (a second time is a no-op). */
export async function markSetUp(ops: Ops, pm: string): Promise<void> {
  await ops.store.tryInsertRow({ id: rowId(pm), type: "authenticated", customer: null, data: "{}", created: ops.now });
}

/** Whether charging (or setting up) `pm` now asks for 3-D Secure. */
export async function needsAuthentication(store: SandboxStore, pm: SbPaymentMethod, offSession: boolean): Promise<boolean> {
  switch (authenticationOf(pm.card)) {
    case "never":
      return false;
    case "always":
      return true;
    case "once":
      return !offSession || !(await isSetUp(store, pm.id));
  }
}

/** The challenge page of an intent (the client secret proves the caller may answer it). */
export function challengeUrl(ops: Pick<Ops, "publicUrl">, id: string, clientSecret: string): string {
  return `${ops.publicUrl}/dev/stripe/authenticate/${encodeURIComponent(id)}?client_secret=${encodeURIComponent(clientSecret)}`;
}

/** Stripe's next_action for 3-D Secure: a redirect when the confirm gave a return_url, else Stripe.js's. */
export function nextActionFor(ops: Pick<Ops, "publicUrl">, id: string, clientSecret: string, returnUrl: string | null | undefined): SbNextAction {
  const url = challengeUrl(ops, id, clientSecret);
  return returnUrl
    ? { type: "redirect_to_url", redirect_to_url: { url, return_url: returnUrl } }
    : { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect", stripe_js: url } };
}

/** The return_url an intent's next_action carries, if any. */
export function returnUrlOf(next: SbNextAction | null): string | null {
  return next?.type === "redirect_to_url" ? next.redirect_to_url.return_url : null;
}
