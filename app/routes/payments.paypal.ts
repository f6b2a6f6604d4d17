import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { SESSION_ENDED_MESSAGE, createApiClient } from "~/utils/api.server";
import { readFlow } from "~/utils/flow.server";
import { failureStatus } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { saveCheckoutCountry } from "~/features/tax/checkout-country.server";
import { paypalKey } from "~/features/paypal/paypal-key.server";
import { translatorOf } from "~/i18n/i18n.server";

// POST /payments/paypal: PayPal's own buttons (live, JavaScript on) ask here for the order or
// subscription to approve in their popup. The portal opens it through the same API endpoint as the
// 'Continue to PayPal' form (same idempotency rule, the coupon of this plan's checkout), with the
// session's token, and answers its PayPal id. Approval and cancellation then go back to the checkout
// with PayPal's own return parameters, where the loader settles them exactly as after the redirect.
// Cross-site posts are refused by the server's Origin check like every cookie-authenticated post.

export const PayPalCreateSchema = z.object({
  planId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  /** The checkout page's path: PayPal's return and cancel URLs are built from it (the redirect flow's too). */
  return_path: z.string().regex(/^\/(subscription\/)?payment\/\d{1,9}$/),
  idempotency_key: z.string().min(16).max(200),
});

const NO_STORE = { "Cache-Control": "no-store" };
// Catalogue keys, answered in the request's language (the API's own messages come in it already).
const UNREADABLE = "payments.paypal.unreadable";
const FAILED = "payments.paypal.failed";

function answer(body: Record<string, unknown>, status = 200, headers: Record<string, string> = {}) {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

export function loader() {
  return answer({ ok: false, message: "Use POST." }, 405, { Allow: "POST" });
}

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return answer({ ok: false, message: "Use POST." }, 405, { Allow: "POST" });
  const t = translatorOf(request);
  const token = await getSessionToken(request);
  if (!token) return answer({ ok: false, message: t(SESSION_ENDED_MESSAGE) }, 401);
  let input: z.infer<typeof PayPalCreateSchema>;
  try {
    const parsed = PayPalCreateSchema.safeParse(await request.json());
    if (!parsed.success) return answer({ ok: false, message: t(UNREADABLE) }, 422);
    input = parsed.data;
  } catch {
    return answer({ ok: false, message: t(UNREADABLE) }, 400);
  }
  // The path must be this plan's checkout: the approval returns there.
  if (!input.return_path.endsWith(`/${input.planId}`)) return answer({ ok: false, message: t(UNREADABLE) }, 422);

  const flow = await readFlow(request, "checkout");
  const coupon = flow?.planId === input.planId ? flow.coupon : undefined;
  const api = createApiClient(request, context, token);
  // The checkout's country becomes the account's billing country first: the payment is taxed as quoted (issue 35).
  const unsaved = await saveCheckoutCountry(api, request, flow?.planId === input.planId ? flow : null);
  if (unsaved) return answer({ ok: false, message: t(unsaved) }, 503);
  const started = await api.post("/api/payments/paypal/checkout", {
    body: {
      planId: input.planId,
      return_path: input.return_path,
      idempotency_key: paypalKey(input.idempotency_key),
      ...(coupon ? { coupon } : {}),
    },
  });
  if (!started.ok) return answer({ ok: false, message: started.message || t(FAILED) }, failureStatus(started.status));
  return answer({ ok: true, id: started.data.paypal_id, kind: started.data.kind });
}
