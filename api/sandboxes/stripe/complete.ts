/*
 * Stripe always sends every field of an object, null where it has no value; the sandbox keeps only the
 * fields it uses. complete() fills the others with Stripe's defaults on the way out (every answer and
 * every event), so objects stored before a field was added are answered whole too. It walks the whole
 * answer: expanded objects, list items and event payloads are completed by their `object` name.
 * tests/api/stripe-sandbox-types.test.ts checks the result against the `stripe` package's types.
 */

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Sets each default that `target` lacks (a field present, even null, is left alone). */
function fill(target: unknown, defaults: Json): void {
  if (!isPlainObject(target)) return;
  for (const [key, value] of Object.entries(defaults)) if (!(key in target)) target[key] = value;
}

const nulls = (...keys: string[]): Json => Object.fromEntries(keys.map((key) => [key, null]));

function completeBillingDetails(details: unknown): void {
  fill(details, { tax_id: null });
}

function completePrice(price: Json): void {
  fill(price, nulls("custom_unit_amount", "tiers_mode", "transform_quantity"));
}

/** The legacy `plan` twin of a recurring price, as Stripe still sends it on subscription items. */
function planOf(price: unknown): Json | null {
  if (!isPlainObject(price) || !isPlainObject(price.recurring)) return null;
  const recurring = price.recurring;
  return {
    id: price.id,
    object: "plan",
    active: price.active,
    amount: price.unit_amount ?? null,
    amount_decimal: price.unit_amount_decimal ?? null,
    billing_scheme: price.billing_scheme ?? "per_unit",
    created: price.created,
    currency: price.currency,
    interval: recurring.interval,
    interval_count: recurring.interval_count,
    livemode: false,
    metadata: price.metadata ?? {},
    meter: recurring.meter ?? null,
    nickname: price.nickname ?? null,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: recurring.trial_period_days ?? null,
    usage_type: recurring.usage_type ?? "licensed",
  };
}

const INVOICE_AUTOMATIC_TAX = { disabled_reason: null, enabled: false, liability: null, provider: null, status: null };

const BY_OBJECT: Record<string, (value: Json) => void> = {
  list(value) {
    // Stripe's lists carry no total_count (the sandbox once sent it on embedded lists).
    delete value.total_count;
  },
  customer(value) {
    fill(value, nulls("shipping"));
  },
  payment_method(value) {
    fill(value, nulls("customer_account"));
    completeBillingDetails(value.billing_details);
  },
  product(value) {
    fill(value, { marketing_features: [], ...nulls("package_dimensions", "shippable", "tax_details", "url") });
  },
  price: completePrice,
  plan() {},
  promotion_code(value) {
    fill(value, nulls("customer_account"));
  },
  discount(value) {
    fill(value, nulls("customer_account"));
  },
  subscription_item(value) {
    fill(value, { tax_rates: [], ...nulls("billing_thresholds", "current_trial") });
    const plan = planOf(value.price);
    if (plan) fill(value, { plan });
  },
  subscription(value) {
    fill(value, {
      billing_mode: { flexible: null, type: "classic" },
      billing_schedules: [],
      invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: "self" } },
      ...nulls(
        "application_fee_percent",
        "billing_cycle_anchor_config",
        "billing_thresholds",
        "customer_account",
        "default_source",
        "managed_payments",
        "next_pending_invoice_item_invoice",
        "on_behalf_of",
        "pause_collection",
        "pending_invoice_item_interval",
        "schedule",
        "transfer_data",
        "trial_settings",
      ),
    });
    fill(value.automatic_tax, { disabled_reason: null });
    fill(value.cancellation_details, { feedback_option: null });
    fill(value.payment_settings, { payment_method_options: null });
  },
  line_item(value) {
    const discounts = Array.isArray(value.discount_amounts) ? value.discount_amounts : [];
    const parent = isPlainObject(value.parent) ? value.parent : null;
    const itemDetails = parent && isPlainObject(parent.subscription_item_details) ? parent.subscription_item_details : null;
    fill(value, {
      subtotal: value.amount,
      quantity_decimal: typeof value.quantity === "number" ? String(value.quantity) : null,
      subscription: itemDetails?.subscription ?? null,
      pretax_credit_amounts: discounts.filter(isPlainObject).map((d) => ({ amount: d.amount, discount: d.discount, type: "discount" })),
    });
    fill(parent, { invoice_item_details: null });
    fill(itemDetails, { proration_details: { credited_items: null } });
  },
  invoice(value) {
    fill(value, {
      amount_shipping: 0,
      automatic_tax: INVOICE_AUTOMATIC_TAX,
      customer_tax_exempt: "none",
      default_tax_rates: [],
      issuer: { type: "self" },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      total_pretax_credit_amounts: Array.isArray(value.total_discount_amounts)
        ? value.total_discount_amounts.filter(isPlainObject).map((d) => ({ amount: d.amount, discount: d.discount, type: "discount" }))
        : [],
      total_taxes: [],
      ...nulls(
        "account_tax_ids",
        "application",
        "automatically_finalizes_at",
        "custom_fields",
        "customer_account",
        "customer_address",
        "customer_phone",
        "customer_shipping",
        "default_source",
        "footer",
        "from_invoice",
        "latest_revision",
        "on_behalf_of",
        "receipt_number",
        "rendering",
        "shipping_cost",
        "shipping_details",
        "statement_descriptor",
        "test_clock",
      ),
    });
  },
  invoice_payment() {},
  payment_intent(value) {
    fill(
      value,
      nulls(
        "allowed_payment_method_types",
        "application",
        "application_fee_amount",
        "automatic_payment_methods",
        "customer_account",
        "excluded_payment_method_types",
        "managed_payments",
        "on_behalf_of",
        "payment_method_configuration_details",
        "payment_method_options",
        "payment_record",
        "processing",
        "review",
        "shipping",
        "source",
        "statement_descriptor",
        "statement_descriptor_suffix",
        "transfer_group",
      ),
    );
  },
  charge(value) {
    fill(value, {
      disputed: false,
      fraud_details: {},
      ...nulls(
        "application",
        "application_fee",
        "application_fee_amount",
        "balance_transaction",
        "calculated_statement_descriptor",
        "failure_balance_transaction",
        "on_behalf_of",
        "receipt_number",
        "review",
        "shipping",
        "source",
        "source_transfer",
        "statement_descriptor",
        "statement_descriptor_suffix",
        "transfer_data",
        "transfer_group",
      ),
    });
    completeBillingDetails(value.billing_details);
    fill(value.outcome, nulls("advice_code", "network_advice_code", "network_decline_code"));
    const details = isPlainObject(value.payment_method_details) ? value.payment_method_details : null;
    const card = details && isPlainObject(details.card) ? details.card : null;
    fill(card, {
      amount_authorized: value.status === "succeeded" ? value.amount : null,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: null },
      network: card?.brand ?? null,
      regulated_status: "unregulated",
      ...nulls(
        "authorization_code",
        "electronic_commerce_indicator",
        "installments",
        "mandate",
        "network_transaction_id",
        "three_d_secure",
        "transaction_link_id",
        "wallet",
      ),
    });
  },
  refund(value) {
    // Stripe's refund has no livemode.
    delete value.livemode;
    fill(
      value,
      nulls("balance_transaction", "customer", "customer_account", "payment_method", "receipt_number", "source_transfer_reversal", "transfer_reversal"),
    );
  },
  setup_intent(value) {
    fill(
      value,
      nulls(
        "allowed_payment_method_types",
        "application",
        "automatic_payment_methods",
        "excluded_payment_method_types",
        "mandate",
        "on_behalf_of",
        "payment_method_configuration_details",
        "payment_method_options",
        "single_use_mandate",
      ),
    );
  },
  event(value) {
    // previous_attributes holds earlier values of the object's fields: completed as that object is.
    const data = isPlainObject(value.data) ? value.data : null;
    const object = data && isPlainObject(data.object) ? data.object : null;
    if (!data || !object || !isPlainObject(data.previous_attributes)) return;
    const previous = data.previous_attributes;
    const whole = complete({ ...structuredClone(object), ...structuredClone(previous) });
    data.previous_attributes = Object.fromEntries(Object.keys(previous).map((key) => [key, whole[key]]));
  },
  item(value) {
    fill(value, { metadata: {}, adjustable_quantity: null });
  },
  "checkout.session"(value) {
    const mode = value.mode;
    fill(value, {
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      custom_fields: [],
      custom_text: nulls("after_submit", "shipping_address", "submit", "terms_of_service_acceptance"),
      customer_creation: value.customer || mode === "setup" ? null : mode === "subscription" ? "always" : "if_required",
      payment_method_collection: mode === "payment" ? null : "always",
      shipping_options: [],
      ui_mode: "hosted",
      ...nulls(
        "adaptive_pricing",
        "after_expiration",
        "allow_promotion_codes",
        "allowed_payment_method_types",
        "billing_address_collection",
        "client_secret",
        "collected_information",
        "consent",
        "consent_collection",
        "currency_conversion",
        "customer_account",
        "integration_identifier",
        "invoice_creation",
        "locale",
        "managed_payments",
        "origin_context",
        "payment_link",
        "payment_method_configuration_details",
        "payment_method_options",
        "permissions",
        "recovered_from",
        "saved_payment_method_options",
        "shipping_address_collection",
        "shipping_cost",
        "submit_type",
        "wallet_options",
      ),
    });
    fill(value.customer_details, nulls("business_name", "individual_name"));
  },
};

/** Completes an answer in place (and returns it): every object in it, at any depth. */
export function complete<T>(value: T): T {
  if (Array.isArray(value)) {
    for (const item of value) complete(item);
  } else if (isPlainObject(value)) {
    for (const child of Object.values(value)) complete(child);
    const name = typeof value.object === "string" ? value.object : null;
    if (name) BY_OBJECT[name]?.(value);
  }
  return value;
}
