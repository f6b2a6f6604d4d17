/*
 * The objects the sandbox keeps, shaped as Stripe's API (2026-10-28.endive) answers them, with only
 * the fields the product can use (complete.ts adds Stripe's other fields, with their defaults, to every answer). Fields whose name starts with "_" are the sandbox's own
 * bookkeeping: they are stored but never answered (render.ts strips them).
 */

export type Metadata = Record<string, string>;

export interface ApiList<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  url: string;
}

interface Base<O extends string> {
  id: string;
  object: O;
  created: number;
  livemode: false;
}

export interface SbAddress {
  city: string | null;
  country: string | null;
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  state: string | null;
}

/** A customer's tax id (Stripe.TaxId); kept on its customer (_tax_ids), answered by /v1/customers/:id/tax_ids. */
export interface SbTaxId extends Base<"tax_id"> {
  country: string | null;
  customer: string;
  customer_account: null;
  owner: { type: "customer"; customer: string };
  type: "eu_vat";
  value: string;
  verification: { status: "verified" | "unverified" | "pending"; verified_address: null; verified_name: null } | null;
}

export interface SbCustomer extends Base<"customer"> {
  email: string | null;
  name: string | null;
  description: string | null;
  phone: string | null;
  /** Its country is where Stripe Tax taxes (tax.ts). */
  address: SbAddress | null;
  /** The customer's tax ids (Stripe keeps them as their own objects; the stand-in on the customer). */
  _tax_ids?: SbTaxId[];
  balance: number;
  currency: string | null;
  default_source: null;
  delinquent: boolean;
  invoice_prefix: string;
  invoice_settings: {
    default_payment_method: string | null;
    custom_fields: null;
    footer: null;
    rendering_options: null;
  };
  preferred_locales: string[];
  tax_exempt: "none";
  test_clock: null;
  metadata: Metadata;
}

export interface SbCard {
  brand: string;
  display_brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  funding: "credit";
  country: string;
  fingerprint: string;
  checks: { address_line1_check: null; address_postal_code_check: "pass" | null; cvc_check: "pass" | null };
  networks: { available: string[]; preferred: null };
  three_d_secure_usage: { supported: true };
  wallet: null;
  generated_from: null;
  regulated_status: "unregulated";
}

export interface SbBillingDetails {
  name: string | null;
  email: string | null;
  phone: string | null;
  address: SbAddress;
}

export interface SbPaymentMethod extends Base<"payment_method"> {
  type: "card";
  card: SbCard;
  billing_details: SbBillingDetails;
  customer: string | null;
  allow_redisplay: "unspecified";
  metadata: Metadata;
}

export interface SbProduct extends Base<"product"> {
  active: boolean;
  name: string;
  description: string | null;
  default_price: string | null;
  images: string[];
  type: "service";
  updated: number;
  metadata: Metadata;
}

export type Interval = "day" | "week" | "month" | "year";

export interface SbRecurring {
  interval: Interval;
  interval_count: number;
  usage_type: "licensed";
  meter: null;
  trial_period_days: null;
}

export interface SbPrice extends Base<"price"> {
  active: boolean;
  billing_scheme: "per_unit";
  currency: string;
  lookup_key: string | null;
  nickname: string | null;
  product: string;
  recurring: SbRecurring | null;
  tax_behavior: "unspecified";
  type: "recurring" | "one_time";
  unit_amount: number;
  unit_amount_decimal: string;
  metadata: Metadata;
}

export type CouponDuration = "once" | "forever" | "repeating";

export interface SbCoupon extends Base<"coupon"> {
  amount_off: number | null;
  currency: string | null;
  duration: CouponDuration;
  duration_in_months: number | null;
  max_redemptions: number | null;
  name: string | null;
  percent_off: number | null;
  redeem_by: null;
  times_redeemed: number;
  valid: boolean;
  metadata: Metadata;
}

export interface SbPromotionCode extends Base<"promotion_code"> {
  active: boolean;
  code: string;
  customer: string | null;
  expires_at: null;
  max_redemptions: number | null;
  promotion: { type: "coupon"; coupon: string };
  restrictions: { first_time_transaction: boolean; minimum_amount: null; minimum_amount_currency: null };
  times_redeemed: number;
  metadata: Metadata;
}

export interface SbDiscount {
  id: string;
  object: "discount";
  checkout_session: string | null;
  customer: string | null;
  end: number | null;
  invoice: string | null;
  invoice_item: null;
  promotion_code: string | null;
  source: { type: "coupon"; coupon: string };
  start: number;
  subscription: string | null;
  subscription_item: null;
}

export type SubscriptionStatus = "incomplete" | "incomplete_expired" | "trialing" | "active" | "past_due" | "canceled" | "unpaid";

export interface SbSubscriptionItem {
  id: string;
  object: "subscription_item";
  created: number;
  current_period_start: number;
  current_period_end: number;
  discounts: string[];
  metadata: Metadata;
  price: SbPrice;
  quantity: number;
  subscription: string;
}

export interface SbSubscription extends Base<"subscription"> {
  application: null;
  /** enabled: its invoices are taxed by Stripe Tax (tax.ts). */
  automatic_tax: { enabled: boolean; liability: { type: "self" } | null };
  billing_cycle_anchor: number;
  cancel_at: number | null;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  cancellation_details: { comment: null; feedback: null; reason: "cancellation_requested" | "payment_failed" | null };
  collection_method: "charge_automatically";
  currency: string;
  customer: string;
  days_until_due: null;
  default_payment_method: string | null;
  description: string | null;
  discounts: string[];
  ended_at: number | null;
  items: ApiList<SbSubscriptionItem>;
  latest_invoice: string | null;
  metadata: Metadata;
  payment_settings: { payment_method_types: null; save_default_payment_method: "off" | "on_subscription" };
  pending_setup_intent: null;
  pending_update: null;
  /** The subscription schedule that manages it (plan-changes.ts); absent on objects stored before. */
  schedule?: string | null;
  start_date: number;
  status: SubscriptionStatus;
  test_clock: null;
  trial_end: number | null;
  trial_start: number | null;
}

export interface SbInvoiceLine {
  id: string;
  object: "line_item";
  amount: number;
  currency: string;
  description: string;
  discount_amounts: { amount: number; discount: string }[];
  discountable: true;
  discounts: string[];
  invoice: string;
  livemode: false;
  metadata: Metadata;
  parent: {
    type: "subscription_item_details";
    subscription_item_details: { invoice_item: null; proration: boolean; subscription: string; subscription_item: string };
  } | null;
  period: { start: number; end: number };
  pricing: { type: "price_details"; price_details: { price: string; product: string }; unit_amount_decimal: string };
  quantity: number;
  taxes: { amount: number; tax_behavior: "exclusive"; tax_rate_details: { tax_rate: string }; taxability_reason: string; taxable_amount: number; type: "tax_rate_details" }[];
}

export interface SbInvoicePayment {
  id: string;
  object: "invoice_payment";
  amount_paid: number | null;
  amount_requested: number;
  created: number;
  currency: string;
  invoice: string;
  is_default: true;
  livemode: false;
  payment: { type: "payment_intent"; payment_intent: string };
  status: "open" | "paid" | "canceled";
  status_transitions: { canceled_at: number | null; paid_at: number | null };
}

export type InvoiceStatus = "draft" | "open" | "paid" | "uncollectible" | "void";
export type BillingReason = "subscription_create" | "subscription_cycle" | "subscription_update" | "manual";

export interface SbInvoice extends Base<"invoice"> {
  account_country: "US";
  account_name: string;
  automatic_tax: { disabled_reason: null; enabled: boolean; liability: { type: "self" } | null; provider: "stripe" | null; status: "complete" | null };
  total_taxes: SbInvoiceLine["taxes"];
  amount_due: number;
  amount_overpaid: number;
  amount_paid: number;
  amount_remaining: number;
  attempt_count: number;
  attempted: boolean;
  auto_advance: boolean;
  billing_reason: BillingReason;
  collection_method: "charge_automatically";
  /** Includable (answered only with expand[]=confirmation_secret). */
  confirmation_secret: { client_secret: string; type: "payment_intent" } | null;
  currency: string;
  customer: string;
  customer_email: string | null;
  customer_name: string | null;
  default_payment_method: string | null;
  description: string | null;
  discounts: string[];
  due_date: null;
  effective_at: number | null;
  ending_balance: number;
  hosted_invoice_url: string;
  invoice_pdf: null;
  last_finalization_error: null;
  lines: ApiList<SbInvoiceLine>;
  metadata: Metadata;
  /** Unix seconds of the next automatic try of a failed renewal; null when none is scheduled. */
  next_payment_attempt: number | null;
  number: string;
  parent: {
    type: "subscription_details";
    quote_details: null;
    subscription_details: { metadata: Metadata; subscription: string };
  } | null;
  /** Includable (answered only with expand[]=payments). */
  payments: ApiList<SbInvoicePayment>;
  period_end: number;
  period_start: number;
  starting_balance: number;
  status: InvoiceStatus;
  status_transitions: {
    finalized_at: number | null;
    marked_uncollectible_at: number | null;
    paid_at: number | null;
    voided_at: number | null;
  };
  subtotal: number;
  subtotal_excluding_tax: number;
  total: number;
  total_discount_amounts: { amount: number; discount: string }[];
  total_excluding_tax: number;
  webhooks_delivered_at: null;
}

export interface SbPaymentError {
  type: "card_error" | "invalid_request_error";
  code: string;
  decline_code?: string;
  message: string;
  charge?: string;
  doc_url?: string;
  payment_method?: Record<string, unknown>;
}

/** What the customer must do next: 3-D Secure, on the sandbox's challenge page. */
export type SbNextAction =
  | { type: "redirect_to_url"; redirect_to_url: { url: string; return_url: string } }
  | { type: "use_stripe_sdk"; use_stripe_sdk: { type: "three_d_secure_redirect"; stripe_js: string } };

/**
 * An intent's automatic payment methods (the Dashboard's): null when it was made with a list of
 * methods (allowed_payment_method_types). allow_redirects "always" means a confirm needs a return_url.
 */
export interface SbAutomaticPaymentMethods {
  allow_redirects?: "always" | "never";
  enabled: boolean;
}

export type PaymentIntentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  | "succeeded"
  | "canceled";

export interface SbPaymentIntent extends Base<"payment_intent"> {
  amount: number;
  allowed_payment_method_types: string[] | null;
  amount_capturable: number;
  amount_received: number;
  automatic_payment_methods: SbAutomaticPaymentMethods | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: "automatic";
  client_secret: string;
  confirmation_method: "automatic";
  currency: string;
  customer: string | null;
  description: string | null;
  last_payment_error: SbPaymentError | null;
  latest_charge: string | null;
  metadata: Metadata;
  next_action: SbNextAction | null;
  payment_method: string | null;
  payment_method_types: string[];
  receipt_email: string | null;
  setup_future_usage: "off_session" | "on_session" | null;
  status: PaymentIntentStatus;
  /** The invoice this intent pays, if any (the API no longer answers it). */
  _invoice?: string;
  /** Stripe Tax's calculation it charges (hooks.inputs.tax.calculation); answered only when set, as Stripe does. */
  hooks?: { inputs: { tax: { calculation: string } } };
}

export interface SbCharge extends Base<"charge"> {
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  billing_details: SbBillingDetails;
  captured: boolean;
  currency: string;
  customer: string | null;
  description: string | null;
  failure_code: string | null;
  failure_message: string | null;
  metadata: Metadata;
  outcome: {
    network_status: "approved_by_network" | "declined_by_network";
    reason: string | null;
    risk_level: "normal";
    seller_message: string;
    type: "authorized" | "issuer_declined";
  };
  paid: boolean;
  payment_intent: string;
  payment_method: string;
  payment_method_details: {
    type: "card";
    card: { brand: string; last4: string; exp_month: number; exp_year: number; funding: "credit"; country: string };
  };
  receipt_email: string | null;
  receipt_url: null;
  refunded: boolean;
  status: "succeeded" | "failed";
}

export interface SbRefund {
  id: string;
  object: "refund";
  created: number;
  amount: number;
  charge: string;
  currency: string;
  customer?: string | null;
  payment_intent: string;
  payment_method?: string | null;
  reason: string | null;
  status: "succeeded";
  metadata: Metadata;
}

export interface SbCheckoutLineItem {
  id: string;
  object: "item";
  amount_discount: number;
  amount_subtotal: number;
  amount_tax: number;
  amount_total: number;
  currency: string;
  description: string;
  price: SbPrice;
  quantity: number;
}

export type CheckoutMode = "payment" | "subscription" | "setup";

export interface SbCheckoutSession {
  id: string;
  object: "checkout.session";
  created: number;
  livemode: false;
  amount_subtotal: number | null;
  amount_total: number | null;
  cancel_url: string | null;
  client_reference_id: string | null;
  currency: string | null;
  customer: string | null;
  customer_details: {
    email: string | null;
    name: string | null;
    phone: null;
    address: { city: null; country: null; line1: null; line2: null; postal_code: string | null; state: null };
    tax_exempt: "none";
    tax_ids: [];
  } | null;
  customer_email: string | null;
  discounts: { coupon: string | null; promotion_code: string | null }[];
  expires_at: number;
  invoice: string | null;
  /** Includable (answered only with expand[]=line_items). */
  line_items: ApiList<SbCheckoutLineItem>;
  metadata: Metadata;
  mode: CheckoutMode;
  payment_intent: string | null;
  payment_method_types: string[];
  payment_status: "paid" | "unpaid" | "no_payment_required";
  setup_intent: string | null;
  status: "open" | "complete" | "expired";
  subscription: string | null;
  success_url: string;
  total_details: { amount_discount: number; amount_shipping: number; amount_tax: number };
  automatic_tax: { enabled: boolean; liability: { type: "self" } | null; provider: "stripe" | null; status: "complete" | null };
  url: string | null;
  /** What the session passes on to the objects it creates. */
  _subscription_data: { metadata: Metadata; description: string | null };
  _payment_intent_data: { metadata: Metadata; description: string | null; setup_future_usage: "off_session" | "on_session" | null };
}

export interface SbSetupIntent extends Base<"setup_intent"> {
  allowed_payment_method_types: string[] | null;
  automatic_payment_methods: SbAutomaticPaymentMethods | null;
  cancellation_reason: null;
  client_secret: string;
  customer: string | null;
  description: string | null;
  last_setup_error: SbPaymentError | null;
  latest_attempt: null;
  next_action: SbNextAction | null;
  payment_method: string | null;
  payment_method_types: string[];
  status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "succeeded" | "canceled";
  usage: "off_session" | "on_session";
  metadata: Metadata;
}

export interface SbEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
}

export interface SbSchedulePhase {
  add_invoice_items: [];
  application_fee_percent: null;
  billing_cycle_anchor: "phase_start" | null;
  billing_thresholds: null;
  collection_method: null;
  currency: string;
  default_payment_method: string | null;
  description: null;
  discounts: [];
  end_date: number;
  invoice_settings: null;
  items: { billing_thresholds: null; discounts: []; metadata: Metadata; plan: string; price: string; quantity: number }[];
  metadata: Metadata;
  on_behalf_of: null;
  proration_behavior: "always_invoice" | "create_prorations" | "none";
  start_date: number;
  transfer_data: null;
  trial_end: null;
}

/** A subscription schedule (plan-changes.ts): phases of prices over time, for a change at the next renewal. */
export interface SbSubscriptionSchedule extends Base<"subscription_schedule"> {
  application: null;
  billing_mode: { flexible: null; type: "classic" };
  canceled_at: number | null;
  completed_at: number | null;
  current_phase: { start_date: number; end_date: number } | null;
  customer: string;
  customer_account: null;
  default_settings: {
    application_fee_percent: null;
    automatic_tax: { disabled_reason: null; enabled: false; liability: null };
    billing_cycle_anchor: "automatic";
    billing_thresholds: null;
    collection_method: "charge_automatically";
    default_payment_method: string | null;
    description: null;
    invoice_settings: {
      account_tax_ids: null;
      custom_fields: null;
      days_until_due: null;
      description: null;
      footer: null;
      issuer: { type: "self" };
    };
    on_behalf_of: null;
    transfer_data: null;
  };
  end_behavior: "release" | "cancel";
  metadata: Metadata;
  pause_schedules: [];
  phases: SbSchedulePhase[];
  released_at: number | null;
  released_subscription: string | null;
  status: "not_started" | "active" | "completed" | "released" | "canceled";
  subscription: string | null;
  test_clock: null;
}

/** Every object type the store keeps, by the store's type name. */
/** A line of a tax calculation (Stripe.Tax.CalculationLineItem), kept on its calculation, answered by its line_items list. */
export interface SbTaxCalculationLineItem {
  id: string;
  object: "tax.calculation_line_item";
  amount: number;
  amount_tax: number;
  livemode: false;
  metadata: Metadata | null;
  performance_location: null;
  product: string | null;
  quantity: number;
  reference: string;
  tax_behavior: "exclusive" | "inclusive";
  tax_code: string;
}

/** Stripe Tax's answer for a payment that is no invoice (Stripe.Tax.Calculation): POST /v1/tax/calculations. */
export interface SbTaxCalculation {
  id: string;
  object: "tax.calculation";
  amount_total: number;
  currency: string;
  customer: string | null;
  customer_details: {
    address: SbAddress | null;
    address_source: "billing" | "shipping" | null;
    ip_address: string | null;
    tax_ids: { type: string; value: string }[];
    taxability_override: "none" | "customer_exempt" | "reverse_charge";
  };
  expires_at: number | null;
  livemode: false;
  ship_from_details: null;
  shipping_cost: null;
  tax_amount_exclusive: number;
  tax_amount_inclusive: number;
  tax_breakdown: {
    amount: number;
    inclusive: boolean;
    tax_rate_details: {
      country: string | null;
      flat_amount: null;
      percentage_decimal: string;
      rate_type: "percentage";
      state: null;
      tax_type: "vat" | null;
    };
    taxability_reason: "standard_rated" | "reverse_charge" | "not_collecting";
    taxable_amount: number;
  }[];
  tax_date: number;
  _line_items: SbTaxCalculationLineItem[];
  /** The PaymentIntent that used it (hooks.inputs.tax.calculation): a calculation is used once. */
  _payment_intent?: string;
}

export interface SandboxObjects {
  customer: SbCustomer;
  payment_method: SbPaymentMethod;
  product: SbProduct;
  price: SbPrice;
  coupon: SbCoupon;
  promotion_code: SbPromotionCode;
  discount: SbDiscount;
  subscription: SbSubscription;
  invoice: SbInvoice;
  payment_intent: SbPaymentIntent;
  charge: SbCharge;
  refund: SbRefund;
  checkout_session: SbCheckoutSession;
  setup_intent: SbSetupIntent;
  event: SbEvent;
  subscription_schedule: SbSubscriptionSchedule;
  tax_calculation: SbTaxCalculation;
}

export type ObjectType = keyof SandboxObjects;
export type SandboxObject = SandboxObjects[ObjectType];

/** The store's type name of an object, from its `object` field. */
export const TYPE_OF_OBJECT: Record<SandboxObject["object"], ObjectType> = {
  customer: "customer",
  payment_method: "payment_method",
  product: "product",
  price: "price",
  coupon: "coupon",
  promotion_code: "promotion_code",
  discount: "discount",
  subscription: "subscription",
  invoice: "invoice",
  payment_intent: "payment_intent",
  charge: "charge",
  refund: "refund",
  "checkout.session": "checkout_session",
  setup_intent: "setup_intent",
  event: "event",
  subscription_schedule: "subscription_schedule",
  "tax.calculation": "tax_calculation",
};

/** How a 404 names each type ("No such customer: 'cus_x'"). */
export const NOUNS: Record<ObjectType, string> = {
  customer: "customer",
  payment_method: "PaymentMethod",
  product: "product",
  price: "price",
  coupon: "coupon",
  promotion_code: "promotion code",
  discount: "discount",
  subscription: "subscription",
  invoice: "invoice",
  payment_intent: "payment_intent",
  charge: "charge",
  refund: "refund",
  checkout_session: "checkout.session",
  setup_intent: "setupintent",
  event: "event",
  subscription_schedule: "subscription schedule",
  tax_calculation: "tax calculation",
};
