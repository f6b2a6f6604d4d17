import { z } from "zod";
import { cardObject, checkCard, isExpired, CARD_MESSAGES } from "./cards";
import { type Ops, previousAttributes } from "./context";
import { cardError, invalidRequest } from "./errors";
import { newId, randomToken } from "./ids";
import type { SbBillingDetails, SbCustomer, SbPaymentMethod, SbTaxId } from "./objects";
import { verificationOf } from "./tax";
import { applyMetadata, zAddress, zId, zInt, zListParams, zMetadata, zText } from "./params";

/* Customers and their payment methods (cards). */

export const customerCreateParams = z.strictObject({
  email: zText.optional(),
  name: zText.optional(),
  description: zText.optional(),
  phone: zText.optional(),
  metadata: zMetadata.optional(),
  payment_method: zText.optional(),
  invoice_settings: z.strictObject({ default_payment_method: zText.optional() }).optional(),
});

export const customerUpdateParams = customerCreateParams.omit({ payment_method: true }).extend({
  // "" unsets it (Stripe's way of emptying a field).
  address: z.union([zAddress, z.literal("")]).optional(),
});

export const taxIdCreateParams = z.strictObject({ type: z.literal("eu_vat"), value: z.string().min(1) });

/** Adds a tax id to a customer; an EU VAT id is verified as the sandbox's VIES stand-in answers (tax.ts). */
export async function createTaxId(ops: Ops, customerId: string, p: z.output<typeof taxIdCreateParams>): Promise<SbTaxId> {
  const customer: SbCustomer = structuredClone(await ops.store.require("customer", customerId));
  const value = p.value.toUpperCase().replace(/[\s.-]/g, "");
  if (!/^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(value)) {
    throw invalidRequest(`Invalid value for eu_vat.`, { param: "value", code: "tax_id_invalid" });
  }
  const prefix = value.slice(0, 2);
  const taxId: SbTaxId = {
    id: newId("txi_"),
    object: "tax_id",
    created: ops.now,
    livemode: false,
    // Greece's VAT prefix is EL; Stripe answers the country GR.
    country: prefix === "EL" ? "GR" : prefix,
    customer: customer.id,
    customer_account: null,
    owner: { type: "customer", customer: customer.id },
    type: "eu_vat",
    value,
    verification: { status: verificationOf(value), verified_address: null, verified_name: null },
  };
  customer._tax_ids = [...(customer._tax_ids ?? []), taxId];
  await ops.store.save("customer", customer);
  return taxId;
}

/** Removes a customer's tax id (DELETE /v1/customers/:id/tax_ids/:tax_id). */
export async function deleteTaxId(ops: Ops, customerId: string, taxIdId: string): Promise<{ id: string; object: "tax_id"; deleted: true }> {
  const customer: SbCustomer = structuredClone(await ops.store.require("customer", customerId));
  const kept = (customer._tax_ids ?? []).filter((t) => t.id !== taxIdId);
  if (kept.length === (customer._tax_ids ?? []).length) throw invalidRequest(`No such tax id: '${taxIdId}'`, { param: "id", code: "resource_missing", status: 404 });
  customer._tax_ids = kept;
  await ops.store.save("customer", customer);
  return { id: taxIdId, object: "tax_id", deleted: true };
}

export const customerListParams = z.strictObject({ email: z.string().optional(), ...zListParams });

export async function createCustomer(ops: Ops, p: z.output<typeof customerCreateParams>): Promise<SbCustomer> {
  const customer: SbCustomer = {
    id: newId("cus_"),
    object: "customer",
    created: ops.now,
    livemode: false,
    email: p.email ?? null,
    name: p.name ?? null,
    description: p.description ?? null,
    phone: p.phone ?? null,
    address: null,
    balance: 0,
    currency: null,
    default_source: null,
    delinquent: false,
    invoice_prefix: randomToken(8).toUpperCase(),
    invoice_settings: { default_payment_method: null, custom_fields: null, footer: null, rendering_options: null },
    preferred_locales: [],
    tax_exempt: "none",
    test_clock: null,
    metadata: applyMetadata({}, p.metadata),
  };
  await ops.store.insert("customer", customer);
  await ops.emit("customer.created", customer);
  if (p.payment_method) await attachPaymentMethod(ops, p.payment_method, customer.id, "payment_method");
  const defaultPm = p.invoice_settings?.default_payment_method;
  if (defaultPm) return updateCustomer(ops, customer.id, { invoice_settings: { default_payment_method: defaultPm } });
  return customer;
}

export async function updateCustomer(ops: Ops, id: string, p: z.output<typeof customerUpdateParams>): Promise<SbCustomer> {
  const before = await ops.store.require("customer", id);
  const customer: SbCustomer = structuredClone(before);
  if (p.email !== undefined) customer.email = p.email;
  if (p.name !== undefined) customer.name = p.name;
  if (p.description !== undefined) customer.description = p.description;
  if (p.phone !== undefined) customer.phone = p.phone;
  if (p.address !== undefined) {
    customer.address =
      p.address === ""
        ? null
        : {
            city: p.address.city ?? customer.address?.city ?? null,
            country: p.address.country?.toUpperCase() ?? customer.address?.country ?? null,
            line1: p.address.line1 ?? customer.address?.line1 ?? null,
            line2: p.address.line2 ?? customer.address?.line2 ?? null,
            postal_code: p.address.postal_code ?? customer.address?.postal_code ?? null,
            state: p.address.state ?? customer.address?.state ?? null,
          };
  }
  customer.metadata = applyMetadata(customer.metadata, p.metadata);
  const defaultPm = p.invoice_settings?.default_payment_method;
  if (defaultPm !== undefined) {
    if (defaultPm !== null) await requireOwnPaymentMethod(ops, defaultPm, id, "invoice_settings[default_payment_method]");
    customer.invoice_settings.default_payment_method = defaultPm;
  }
  await ops.store.save("customer", customer);
  const changed = previousAttributes(before, customer);
  if (Object.keys(changed).length > 0) await ops.emit("customer.updated", customer, changed);
  return customer;
}

/** A payment method that must be attached to `customer` (Stripe refuses others as defaults). */
export async function requireOwnPaymentMethod(ops: Ops, id: string, customer: string, param: string): Promise<SbPaymentMethod> {
  const pm = await ops.store.require("payment_method", id, param);
  if (pm.customer !== customer) {
    throw invalidRequest(
      `The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`,
      { param },
    );
  }
  return pm;
}

// Payment methods -----------------------------------------------------------------------------

const zLoose = z.union([z.string(), z.number()]).transform(String);

const zBillingDetails = z.strictObject({
  name: zText.optional(),
  email: zText.optional(),
  phone: zText.optional(),
  address: zAddress.optional(),
});

export const paymentMethodCreateParams = z.strictObject({
  type: z.literal("card"),
  // Card fields are checked by checkCard(), which answers Stripe's card errors ("incomplete", "invalid").
  card: z.strictObject({
    number: zLoose.optional(),
    exp_month: zLoose.optional(),
    exp_year: zLoose.optional(),
    cvc: zLoose.optional(),
  }),
  billing_details: zBillingDetails.optional(),
  metadata: zMetadata.optional(),
});

export const paymentMethodUpdateParams = z.strictObject({
  billing_details: zBillingDetails.optional(),
  card: z.strictObject({ exp_month: zInt.optional(), exp_year: zInt.optional() }).optional(),
  metadata: zMetadata.optional(),
});

export const paymentMethodListParams = z.strictObject({
  customer: zId.optional(),
  type: z.literal("card").optional(),
  ...zListParams,
});

export const attachParams = z.strictObject({ customer: zId });

/** "" → null (not given); digits → number; anything else → NaN (an invalid value). */
function looseInt(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return null;
  return /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
}

function mergeBillingDetails(current: SbBillingDetails, p: z.output<typeof zBillingDetails> | undefined): SbBillingDetails {
  if (!p) return current;
  const next = structuredClone(current);
  if (p.name !== undefined) next.name = p.name;
  if (p.email !== undefined) next.email = p.email;
  if (p.phone !== undefined) next.phone = p.phone;
  for (const [key, value] of Object.entries(p.address ?? {})) {
    if (value !== undefined) next.address[key as keyof SbBillingDetails["address"]] = value;
  }
  return next;
}

const EMPTY_BILLING_DETAILS: SbBillingDetails = {
  name: null,
  email: null,
  phone: null,
  address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
};

export async function createPaymentMethod(ops: Ops, p: z.output<typeof paymentMethodCreateParams>): Promise<SbPaymentMethod> {
  const checked = checkCard(
    {
      number: p.card.number ?? null,
      exp_month: looseInt(p.card.exp_month),
      exp_year: looseInt(p.card.exp_year),
      cvc: p.card.cvc ?? null,
    },
    ops.nowDate,
  );
  const billing = mergeBillingDetails(EMPTY_BILLING_DETAILS, p.billing_details);
  const pm: SbPaymentMethod = {
    id: newId("pm_"),
    object: "payment_method",
    created: ops.now,
    livemode: false,
    type: "card",
    card: cardObject(checked, billing.address.postal_code !== null),
    billing_details: billing,
    customer: null,
    allow_redisplay: "unspecified",
    metadata: applyMetadata({}, p.metadata),
  };
  await ops.store.insert("payment_method", pm);
  return pm;
}

export async function updatePaymentMethod(ops: Ops, id: string, p: z.output<typeof paymentMethodUpdateParams>): Promise<SbPaymentMethod> {
  const before = await ops.store.require("payment_method", id);
  const pm: SbPaymentMethod = structuredClone(before);
  pm.billing_details = mergeBillingDetails(pm.billing_details, p.billing_details);
  const month = p.card?.exp_month ?? pm.card.exp_month;
  const year = p.card?.exp_year === undefined ? pm.card.exp_year : p.card.exp_year < 100 ? 2000 + p.card.exp_year : p.card.exp_year;
  if (month < 1 || month > 12) throw cardError("invalid_expiry_month", CARD_MESSAGES.invalidMonth, { param: "exp_month" });
  if (isExpired(month, year, ops.nowDate)) throw cardError("expired_card", CARD_MESSAGES.expired, { param: "exp_year" });
  pm.card.exp_month = month;
  pm.card.exp_year = year;
  pm.metadata = applyMetadata(pm.metadata, p.metadata);
  await ops.store.save("payment_method", pm);
  if (pm.customer) await ops.emit("payment_method.updated", pm, previousAttributes(before, pm));
  return pm;
}

/** Attaches a card to a customer (nothing happens when it is already theirs). */
export async function attachPaymentMethod(ops: Ops, id: string, customerId: string, param = "customer"): Promise<SbPaymentMethod> {
  const pm = await ops.store.require("payment_method", id, param === "customer" ? "id" : param);
  await ops.store.require("customer", customerId, "customer");
  if (pm.customer === customerId) return pm;
  if (pm.customer) {
    throw invalidRequest("The payment method you provided has already been attached to a customer.", { param });
  }
  if (isExpired(pm.card.exp_month, pm.card.exp_year, ops.nowDate)) {
    throw cardError("expired_card", CARD_MESSAGES.expired, { decline_code: "expired_card" });
  }
  pm.customer = customerId;
  await ops.store.save("payment_method", pm);
  await ops.emit("payment_method.attached", pm);
  return pm;
}

export async function detachPaymentMethod(ops: Ops, id: string): Promise<SbPaymentMethod> {
  const pm = await ops.store.require("payment_method", id);
  const owner = pm.customer;
  if (!owner) {
    throw invalidRequest("The payment method you provided is not attached to a customer so detachment is impossible.");
  }
  const customer = await ops.store.get("customer", owner);
  if (customer && customer.invoice_settings.default_payment_method === id) {
    await updateCustomer(ops, owner, { invoice_settings: { default_payment_method: null } });
  }
  pm.customer = null;
  await ops.store.save("payment_method", pm);
  await ops.emit("payment_method.detached", pm, { customer: owner });
  return pm;
}

/**
 * The card that pays for `customer`: theirs or nobody's yet (a payment that succeeds then attaches
 * it, see chargeIntent); someone else's card is refused.
 */
export async function paymentMethodFor(ops: Ops, id: string, customer: string | null, param: string): Promise<SbPaymentMethod> {
  const pm = await ops.store.require("payment_method", id, param);
  if (customer && pm.customer && pm.customer !== customer) {
    throw invalidRequest(`The PaymentMethod ${id} does not belong to the Customer ${customer}. Please use a PaymentMethod that belongs to this Customer.`, { param });
  }
  return pm;
}
