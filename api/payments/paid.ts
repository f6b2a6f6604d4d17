import type { Logger } from "../platform/logger";
import type { PayingCard } from "./gateway";

/*
 * What every gateway reports once it has recorded a paid payment (card, PayPal, crypto): the receipt
 * (api/billing/notices.ts) is sent from it. Shared by the gateways, so it is none of theirs.
 */

/** A paid payment just recorded: what its receipt needs besides the rows (claimed once per gatewayRef). */
export interface RecordedPayment {
  userId: number;
  gatewayRef: string;
  /** The period the payment buys (free months included). */
  periodStart: Date;
  periodEnd: Date;
  /** The card that paid, when the payment names it (a one-time payment). */
  paymentMethodId?: string | null;
  /** The card the receipt names, looked up at the card gateway once the receipt is claimed; absent: none (PayPal, crypto). */
  card?: () => Promise<PayingCard | null>;
}

export type PaidHook = (payment: RecordedPayment) => Promise<void>;

/** Tells the hook; a receipt that cannot be sent never fails the payment's recording. */
export async function tellPaid(deps: { onPaid?: PaidHook; logger: Logger }, payment: RecordedPayment): Promise<void> {
  try {
    await deps.onPaid?.(payment);
  } catch (error) {
    deps.logger.error(`Receipt for ${payment.gatewayRef} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
