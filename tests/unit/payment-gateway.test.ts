import { describe, expect, it } from "vitest";
import { bitpayGateway } from "../../api/payments/bitpay/gateway";
import { paypalGateway } from "../../api/payments/paypal/gateway";
import { type PlanTerms, renewalOf } from "../../api/payments/renewal-rule";
import { stripeGateway } from "../../api/payments/stripe/gateway";
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
    // Our row's amount is the renewal's net: taxCents null says so (tax.ts's unpaidRenewalTax adds the VAT).
    expect(recordedRenewal({ amount_cents: 999 })).toEqual({ amountCents: 999, taxCents: null, open: true, payableHere: false, hostedInvoiceUrl: null });
    expect(recordedRenewal({ amount_cents: null }).amountCents).toBe(0);
  });
});

// Issue 32: whether a plan paid through a gateway renews is the one renewal rule's answer, not each adapter's own.
describe("each gateway's renewal is the one rule's", () => {
  const plan = (over: Partial<PlanTerms>): PlanTerms => ({ billing_type: "recurring", duration_months: 1, extra_months: 0, discounted_price_cents: 999, regular_price_cents: 1299, ...over });
  const plans = [plan({}), plan({ duration_months: 3 }), plan({ duration_months: 12, extra_months: 2 }), plan({ duration_months: 24, extra_months: 3 }), plan({ billing_type: "single", duration_months: 60 })];
  const adapters = [
    [stripeGateway({} as Parameters<typeof stripeGateway>[0]), "card"],
    [paypalGateway({} as Parameters<typeof paypalGateway>[0]), "paypal"],
    [bitpayGateway(), "crypto"],
  ] as const;
  it.each(adapters.map(([gateway, method]) => [gateway.name, gateway, method] as const))("%s", (_name, gateway, method) => {
    for (const terms of plans) expect(gateway.renewsPlan(terms), JSON.stringify(terms)).toBe(renewalOf(terms, method).renews);
  });
});

