import { DomainError } from "../../platform/errors";
import type { PaymentGateway } from "../gateway";
import { renewalOf } from "../renewal-rule";

/*
 * BitPay's adapter (api/payments/gateway.ts): a crypto plan never renews by itself (a renewal invoice is
 * emailed before it ends, bitpay/payments.ts), and a crypto payment is refunded by hand (the customer
 * leaves an address, staff send it): nothing here to suspend, cancel or give back at BitPay.
 */
export function bitpayGateway(): PaymentGateway {
  const nothingToPay = async (): Promise<never> => {
    throw new DomainError("not_found", "There is no unpaid invoice to pay.");
  };
  return {
    name: "bitpay",
    paysRenewalsHere: false,
    refundKind: "crypto",
    renewsPlan: (plan) => renewalOf(plan, "crypto").renews,
    isPastDue: () => false,
    async setRenewal() {
      throw new DomainError("auto_renewal_unavailable", "Crypto plans do not renew automatically.");
    },
    cancel: async () => undefined,
    refund: async () => null,
    cardFingerprint: async () => null,
    payingCard: async () => null,
    openRenewal: async (row) => ({ amountCents: Number(row.amount_cents ?? 0), taxCents: null, open: false, payableHere: false, hostedInvoiceUrl: null }),
    payOpenRenewal: nothingToPay,
  };
}
