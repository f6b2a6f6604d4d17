import { NOUNS, type ObjectType } from "./objects";

/** The `error` member of a Stripe error answer. */
export interface StripeErrorBody {
  type: "invalid_request_error" | "card_error" | "api_error" | "idempotency_error";
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  charge?: string;
  doc_url?: string;
  payment_intent?: Record<string, unknown>;
  setup_intent?: Record<string, unknown>;
  payment_method?: Record<string, unknown>;
}

/** An answer other than 200, as Stripe would give it: `{ error: body }` with `status`. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    /**
     * The request failed validation, before anything ran: Stripe keeps no answer under its Idempotency-Key,
     * so a corrected retry with the same key runs.
     */
    readonly validation = false,
  ) {
    super(body.message);
    this.name = "SandboxError";
  }
}

export function invalidRequest(
  message: string,
  opts: { param?: string; code?: string; status?: number; validation?: boolean } = {},
): SandboxError {
  return new SandboxError(
    opts.status ?? 400,
    {
      type: "invalid_request_error",
      message,
      ...(opts.code ? { code: opts.code } : {}),
      ...(opts.param ? { param: opts.param } : {}),
    },
    opts.validation ?? false,
  );
}

export function notFound(type: ObjectType, id: string, param = "id"): SandboxError {
  return invalidRequest(`No such ${NOUNS[type]}: '${id}'`, { status: 404, code: "resource_missing", param });
}

export function cardError(
  code: string,
  message: string,
  extra: Omit<StripeErrorBody, "type" | "code" | "message"> = {},
): SandboxError {
  return new SandboxError(402, {
    type: "card_error",
    code,
    message,
    doc_url: `https://docs.stripe.com/error-codes/${code.replace(/_/g, "-")}`,
    ...extra,
  });
}

/** The payment_intent_unexpected_state error (confirming a paid intent, refunding an unpaid one, ...). */
export function unexpectedState(message: string, param?: string): SandboxError {
  return invalidRequest(message, { code: "payment_intent_unexpected_state", ...(param ? { param } : {}) });
}
