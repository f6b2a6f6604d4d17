import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { SESSION_ENDED_MESSAGE, createApiClient } from "~/utils/api.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { failureStatus } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { saveCheckoutCountry } from "~/features/tax/checkout-country.server";
import { WALLET_REQUEST_FALLBACK } from "~/utils/wallet-errors";
import { translatorOf } from "~/i18n/i18n.server";

// POST /payments/wallet: the checkout's Google Pay and Apple Pay panels post the wallet payload here
// with fetch (they are JavaScript-only, DESIGN §3). The portal calls the API's wallet payment with the
// session's token (the browser never sees it) and, when the plan is paid, stores the checkout's
// success in the __flow cookie exactly as the card payment does, so the checkout page then shows
// 'Payment Successful!'. Answers JSON: {ok, message} | {ok: false, requires_action, client_secret,
// payment_intent, subscription, authentication_url}; after the bank's challenge the page posts
// {planId, payment_intent, subscription} here and the API finishes the attempt (docs/decisions/030).
// Cross-site posts are refused by the server's Origin check like every cookie-authenticated post.
// Its messages are in the request's language (the API's come in it already; the portal's own from the catalogue).

const UNREADABLE = "payments.wallet.unreadable";
const NOT_COMPLETED = "payments.wallet.notCompleted";

const WalletPostSchema = z.object({
  planId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  paymentTokenId: z.string().trim().min(1).max(255),
  paymentSource: z.enum(["googlepay", "applepay"]),
  idempotency_key: z.string().min(16).max(200),
});

/** After the bank's 3-D Secure challenge (live: Stripe.js; sandbox: the dialog): finish the attempt. */
const WalletCompletionSchema = z.object({
  planId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  payment_intent: z.string().trim().min(1).max(255),
  subscription: z.string().trim().max(255).optional(),
});

const NO_STORE = { "Cache-Control": "no-store" };

function answer(body: Record<string, unknown>, status = 200, headers: HeadersInit = {}) {
  return Response.json(body, { status, headers: { ...NO_STORE, ...Object.fromEntries(new Headers(headers)) } });
}

export function loader() {
  return answer({ ok: false, message: "Use POST." }, 405, { Allow: "POST" });
}

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return answer({ ok: false, message: "Use POST." }, 405, { Allow: "POST" });
  const t = translatorOf(request);
  const token = await getSessionToken(request);
  if (!token) return answer({ ok: false, message: t(SESSION_ENDED_MESSAGE) }, 401);

  let input: z.infer<typeof WalletPostSchema>;
  try {
    const body: unknown = await request.json();
    const completion = WalletCompletionSchema.safeParse(body);
    if (completion.success) return completeAuthentication(request, context, token, completion.data);
    const parsed = WalletPostSchema.safeParse(body);
    if (!parsed.success) return answer({ ok: false, message: t(UNREADABLE) }, 422);
    input = parsed.data;
  } catch {
    return answer({ ok: false, message: t(UNREADABLE) }, 400);
  }

  // The coupon applied on this plan's checkout (its order summary) applies to the wallet too.
  const flow = await readFlow(request, "checkout");
  const coupon = flow?.planId === input.planId ? flow.coupon : undefined;

  const api = createApiClient(request, context, token);
  // The checkout's country becomes the account's billing country first: the payment is taxed as quoted (issue 35).
  const unsaved = await saveCheckoutCountry(api, request, flow?.planId === input.planId ? flow : null);
  if (unsaved) return answer({ ok: false, message: t(unsaved) }, 503);
  const paid = await api.post("/api/payments/wallet", {
    body: {
      paymentTokenId: input.paymentTokenId,
      planId: input.planId,
      paymentSource: input.paymentSource,
      idempotency_key: input.idempotency_key,
      ...(coupon ? { coupon } : {}),
    },
  });
  if (!paid.ok) {
    const status = failureStatus(paid.status);
    return answer({ ok: false, message: paid.message || t(WALLET_REQUEST_FALLBACK) }, status);
  }
  if (paid.data.status === "requires_action" && paid.data.client_secret) {
    const challenge = paid.data;
    return answer({
      ok: false,
      requires_action: true,
      client_secret: challenge.client_secret,
      payment_intent: challenge.payment_intent,
      subscription: challenge.subscription_id,
      authentication_url: challenge.authentication_url,
      message: paid.message,
    });
  }
  const cookie = await writeFlow(request, "checkout", { planId: input.planId, paidAt: Date.now() });
  return answer({ ok: true, message: paid.message }, 200, { "Set-Cookie": cookie });
}

async function completeAuthentication(
  request: Request,
  context: ActionFunctionArgs["context"],
  token: string,
  input: z.infer<typeof WalletCompletionSchema>,
) {
  const t = translatorOf(request);
  const api = createApiClient(request, context, token);
  const done = await api.post("/api/payments/card/complete-authentication", {
    body: { payment_intent: input.payment_intent, ...(input.subscription ? { subscription: input.subscription } : {}) },
  });
  if (!done.ok) return answer({ ok: false, message: done.message || t(WALLET_REQUEST_FALLBACK) }, failureStatus(done.status));
  if (done.data.status !== "paid") return answer({ ok: false, message: t(NOT_COMPLETED) }, 409);
  const cookie = await writeFlow(request, "checkout", { planId: input.planId, paidAt: Date.now() });
  return answer({ ok: true, message: done.message }, 200, { "Set-Cookie": cookie });
}
