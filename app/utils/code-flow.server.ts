import { CODE_TTL_SECONDS, RESEND_SECONDS, secondsLeft } from "./flow.server";

/** The countdowns of a code step, from when the code was sent (the API enforces the same rules). */
export function codeStepState(flow: { email: string; sentAt: number }) {
  return {
    email: flow.email,
    sentAt: flow.sentAt,
    resendIn: secondsLeft(flow.sentAt, RESEND_SECONDS),
    expiresIn: secondsLeft(flow.sentAt, CODE_TTL_SECONDS),
  };
}
