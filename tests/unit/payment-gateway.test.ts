import { describe, expect, it } from "vitest";
import { type Gateways, type PaymentGateway, gatewayFor, noRenewalOf, recordedRenewal, refundKindOf, renewsAutomatically } from "../../api/payments/gateway";

// What billing decides from a subscription's record alone (docs/decisions/049): the same whether the gateway is on or off.
const row = (over: Partial<Parameters<typeof noRenewalOf>[0]> = {}) => ({
  subscription_by: "stripe" as const,
  billing_type: "recurring" as const,
  stripe_sub_id: "sub_1" as string | null,
  paypal_sub_id: null as string | null,
  ...over,
});

describe("the gateway interface's rules", () => {
  it("says why a subscription's renewal cannot be switched, in the order billing tells it", () => {
    expect(noRenewalOf(row())).toBeNull();
    expect(noRenewalOf(row({ subscription_by: "bitpay", billing_type: "single" }))).toBe("crypto");
    expect(noRenewalOf(row({ billing_type: "single" }))).toBe("one_time");
    expect(noRenewalOf(row({ subscription_by: "paypal", stripe_sub_id: null }))).toBe("paypal_order");
    expect(noRenewalOf(row({ subscription_by: "paypal", stripe_sub_id: null, paypal_sub_id: "I-1" }))).toBeNull();
    expect(noRenewalOf(row({ stripe_sub_id: null }))).toBe("not_card");
  });

  it("renews automatically only a switchable recurring subscription with auto-renewal on", () => {
    expect(renewsAutomatically({ ...row(), cancel_at_period_end: 0 })).toBe(true);
    expect(renewsAutomatically({ ...row(), cancel_at_period_end: 1 })).toBe(false);
    expect(renewsAutomatically({ ...row({ subscription_by: "paypal", paypal_sub_id: "I-1" }), cancel_at_period_end: 0 })).toBe(true);
    expect(renewsAutomatically({ ...row({ subscription_by: "paypal", stripe_sub_id: null }), cancel_at_period_end: 0 })).toBe(false);
    expect(renewsAutomatically({ ...row({ subscription_by: "bitpay" }), cancel_at_period_end: 0 })).toBe(false);
  });

  it("refunds card and PayPal payments through their gateway and crypto by hand", () => {
    expect(refundKindOf({ payment_gateway: "stripe" })).toBe("card");
    expect(refundKindOf({ payment_gateway: "paypal" })).toBe("paypal");
    expect(refundKindOf({ payment_gateway: "bitpay" })).toBe("crypto");
  });

  it("finds a subscription's or a payment's own gateway, and none while it is off", () => {
    const stripe = { name: "stripe" } as PaymentGateway;
    const paypal = { name: "paypal" } as PaymentGateway;
    const on: Gateways = { stripe, paypal, bitpay: null };
    expect(gatewayFor(on, { subscription_by: "stripe" })).toBe(stripe);
    expect(gatewayFor(on, { subscription_by: "paypal" })).toBe(paypal);
    expect(gatewayFor(on, { payment_gateway: "paypal" })).toBe(paypal);
    expect(gatewayFor(on, { subscription_by: "bitpay" })).toBeNull();
    expect(gatewayFor({ ...on, paypal: null }, { payment_gateway: "paypal" })).toBeNull();
  });

  it("keeps an unpaid renewal its gateway retries itself as our row records it", () => {
    expect(recordedRenewal({ amount_cents: 999 })).toEqual({ amountCents: 999, open: true, payableHere: false, hostedInvoiceUrl: null });
    expect(recordedRenewal({ amount_cents: null }).amountCents).toBe(0);
  });
});
