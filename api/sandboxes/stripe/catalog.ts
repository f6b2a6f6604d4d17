import { z } from "zod";
import type { Ops } from "./context";
import { invalidRequest } from "./errors";
import { newId, randomToken } from "./ids";
import type { Interval, SbCoupon, SbDiscount, SbPrice, SbProduct, SbPromotionCode } from "./objects";
import { applyMetadata, onlyOneOf, zBool, zCurrency, zDecimal, zId, zInt, zList, zListParams, zMetadata, zText } from "./params";
import type { SandboxStore } from "./store";

/* Products, prices, coupons, promotion codes and the discounts they make. */

// Products --------------------------------------------------------------------------------------

export const productCreateParams = z.strictObject({
  id: zText.optional(),
  name: zId,
  description: zText.optional(),
  active: zBool.optional(),
  metadata: zMetadata.optional(),
});

export async function createProduct(ops: Ops, p: z.output<typeof productCreateParams>): Promise<SbProduct> {
  const product: SbProduct = {
    id: p.id ?? newId("prod_"),
    object: "product",
    created: ops.now,
    livemode: false,
    active: p.active ?? true,
    name: p.name,
    description: p.description ?? null,
    default_price: null,
    images: [],
    type: "service",
    updated: ops.now,
    metadata: applyMetadata({}, p.metadata),
  };
  if (!(await ops.store.insert("product", product))) {
    throw invalidRequest(`Product already exists.`, { param: "id", code: "resource_already_exists" });
  }
  return product;
}

// Prices ----------------------------------------------------------------------------------------

/** Stripe's longest billing interval is three years. */
const MAX_INTERVAL_COUNT: Record<Interval, number> = { day: 1095, week: 156, month: 36, year: 3 };

export const priceCreateParams = z.strictObject({
  currency: zCurrency,
  unit_amount: zInt.pipe(z.number().min(0)),
  product: zText.optional(),
  product_data: z.strictObject({ name: zId, metadata: zMetadata.optional() }).optional(),
  recurring: z
    .strictObject({
      interval: z.enum(["day", "week", "month", "year"]),
      interval_count: zInt.pipe(z.number().min(1)).optional(),
    })
    .optional(),
  lookup_key: zText.optional(),
  transfer_lookup_key: zBool.optional(),
  nickname: zText.optional(),
  active: zBool.optional(),
  metadata: zMetadata.optional(),
});

export const priceListParams = z.strictObject({
  lookup_keys: zList(z.string()).optional(),
  active: zBool.optional(),
  product: z.string().optional(),
  type: z.enum(["recurring", "one_time"]).optional(),
  currency: z.string().optional(),
  ...zListParams,
});

export async function createPrice(ops: Ops, p: z.output<typeof priceCreateParams>): Promise<SbPrice> {
  onlyOneOf({ product: p.product, product_data: p.product_data });
  let productId: string;
  if (p.product) {
    productId = (await ops.store.require("product", p.product, "product")).id;
  } else if (p.product_data) {
    productId = (await createProduct(ops, { name: p.product_data.name, metadata: p.product_data.metadata })).id;
  } else {
    throw invalidRequest("Missing required param: product.", { param: "product", code: "parameter_missing" });
  }
  if (p.recurring) {
    const count = p.recurring.interval_count ?? 1;
    if (count > MAX_INTERVAL_COUNT[p.recurring.interval]) {
      throw invalidRequest("The maximum billing interval is three years.", { param: "recurring[interval_count]" });
    }
  }
  if (p.lookup_key) {
    const holder = (await ops.store.list("price")).find((price) => price.lookup_key === p.lookup_key);
    if (holder && !p.transfer_lookup_key) {
      throw invalidRequest(`A price (\`${holder.id}\`) already uses that lookup key.`, { param: "lookup_key" });
    }
    if (holder) await ops.store.save("price", { ...holder, lookup_key: null });
  }
  const price: SbPrice = {
    id: newId("price_"),
    object: "price",
    created: ops.now,
    livemode: false,
    active: p.active ?? true,
    billing_scheme: "per_unit",
    currency: p.currency,
    lookup_key: p.lookup_key ?? null,
    nickname: p.nickname ?? null,
    product: productId,
    recurring: p.recurring
      ? {
          interval: p.recurring.interval,
          interval_count: p.recurring.interval_count ?? 1,
          usage_type: "licensed",
          meter: null,
          trial_period_days: null,
        }
      : null,
    tax_behavior: "unspecified",
    type: p.recurring ? "recurring" : "one_time",
    unit_amount: p.unit_amount,
    unit_amount_decimal: String(p.unit_amount),
    metadata: applyMetadata({}, p.metadata),
  };
  await ops.store.insert("price", price);
  return price;
}

export async function listPrices(store: SandboxStore, p: z.output<typeof priceListParams>): Promise<SbPrice[]> {
  return (await store.list("price")).filter(
    (price) =>
      (p.active === undefined || price.active === p.active) &&
      (!p.lookup_keys || (price.lookup_key !== null && p.lookup_keys.includes(price.lookup_key))) &&
      (!p.product || price.product === p.product) &&
      (!p.type || price.type === p.type) &&
      (!p.currency || price.currency === p.currency.toLowerCase()),
  );
}

// Coupons and promotion codes -------------------------------------------------------------------

export const couponCreateParams = z.strictObject({
  id: zText.optional(),
  percent_off: zDecimal.pipe(z.number().gt(0).max(100)).optional(),
  amount_off: zInt.pipe(z.number().min(1)).optional(),
  currency: zCurrency.optional(),
  duration: z.enum(["once", "forever", "repeating"]).optional(),
  duration_in_months: zInt.pipe(z.number().min(1)).optional(),
  max_redemptions: zInt.pipe(z.number().min(1)).optional(),
  name: zText.optional(),
  metadata: zMetadata.optional(),
});

export async function createCoupon(ops: Ops, p: z.output<typeof couponCreateParams>): Promise<SbCoupon> {
  onlyOneOf({ percent_off: p.percent_off, amount_off: p.amount_off });
  if (p.percent_off === undefined && p.amount_off === undefined) {
    throw invalidRequest("You must pass either percent_off or amount_off.", { param: "percent_off" });
  }
  if (p.amount_off !== undefined && !p.currency) {
    throw invalidRequest("You must pass currency when passing amount_off.", { param: "currency" });
  }
  const duration = p.duration ?? "once";
  if (duration === "repeating" && !p.duration_in_months) {
    throw invalidRequest("You must pass duration_in_months when duration is repeating.", { param: "duration_in_months" });
  }
  const coupon: SbCoupon = {
    id: p.id ?? randomToken(8).toUpperCase(),
    object: "coupon",
    created: ops.now,
    livemode: false,
    amount_off: p.amount_off ?? null,
    currency: p.amount_off !== undefined ? (p.currency ?? null) : null,
    duration,
    duration_in_months: duration === "repeating" ? (p.duration_in_months ?? null) : null,
    max_redemptions: p.max_redemptions ?? null,
    name: p.name ?? null,
    percent_off: p.percent_off ?? null,
    redeem_by: null,
    times_redeemed: 0,
    valid: true,
    metadata: applyMetadata({}, p.metadata),
  };
  if (!(await ops.store.insert("coupon", coupon))) {
    throw invalidRequest("Coupon already exists.", { param: "id", code: "resource_already_exists" });
  }
  return coupon;
}

export const promotionCodeCreateParams = z.strictObject({
  code: zText.optional(),
  promotion: z.strictObject({ type: z.literal("coupon"), coupon: zId }).optional(),
  /** The shape of API versions before 2025-09-30. */
  coupon: zText.optional(),
  active: zBool.optional(),
  customer: zText.optional(),
  max_redemptions: zInt.pipe(z.number().min(1)).optional(),
  metadata: zMetadata.optional(),
});

export const promotionCodeListParams = z.strictObject({
  code: z.string().optional(),
  active: zBool.optional(),
  coupon: z.string().optional(),
  customer: z.string().optional(),
  ...zListParams,
});

export async function createPromotionCode(ops: Ops, p: z.output<typeof promotionCodeCreateParams>): Promise<SbPromotionCode> {
  const couponId = p.promotion?.coupon ?? p.coupon;
  if (!couponId) throw invalidRequest("Missing required param: promotion[coupon].", { param: "promotion[coupon]", code: "parameter_missing" });
  await ops.store.require("coupon", couponId, p.promotion ? "promotion[coupon]" : "coupon");
  if (p.customer) await ops.store.require("customer", p.customer, "customer");
  const code = p.code ?? randomToken(8).toUpperCase();
  if (!/^[a-zA-Z0-9_-]{1,200}$/.test(code)) {
    throw invalidRequest("Promotion codes may contain only letters, digits, dashes and underscores.", { param: "code" });
  }
  const active = p.active ?? true;
  const taken = (await ops.store.list("promotion_code")).some((pc) => pc.active && pc.code.toLowerCase() === code.toLowerCase());
  if (active && taken) {
    throw invalidRequest(`An active promotion code with \`code: ${code}\` already exists.`, { param: "code" });
  }
  const promo: SbPromotionCode = {
    id: newId("promo_"),
    object: "promotion_code",
    created: ops.now,
    livemode: false,
    active,
    code,
    customer: p.customer ?? null,
    expires_at: null,
    max_redemptions: p.max_redemptions ?? null,
    promotion: { type: "coupon", coupon: couponId },
    restrictions: { first_time_transaction: false, minimum_amount: null, minimum_amount_currency: null },
    times_redeemed: 0,
    metadata: applyMetadata({}, p.metadata),
  };
  await ops.store.insert("promotion_code", promo);
  return promo;
}

export async function listPromotionCodes(store: SandboxStore, p: z.output<typeof promotionCodeListParams>): Promise<SbPromotionCode[]> {
  return (await store.list("promotion_code")).filter(
    (pc) =>
      (p.code === undefined || pc.code.toLowerCase() === p.code.toLowerCase()) &&
      (p.active === undefined || pc.active === p.active) &&
      (!p.coupon || pc.promotion.coupon === p.coupon) &&
      (!p.customer || pc.customer === p.customer),
  );
}

// Discounts -------------------------------------------------------------------------------------

export const zDiscounts = zList(z.strictObject({ coupon: zText.optional(), promotion_code: zText.optional() }));

/** A coupon to apply, and the promotion code that named it. */
export interface DiscountSpec {
  coupon: SbCoupon;
  promotion: SbPromotionCode | null;
}

function exhausted(limit: number | null, used: number): boolean {
  return limit !== null && used >= limit;
}

/** Checks `discounts[i][coupon|promotion_code]` and finds their coupons. */
export async function resolveDiscounts(
  ops: Ops,
  entries: readonly { coupon?: string | null | undefined; promotion_code?: string | null | undefined }[] | undefined,
  customer: string | null,
  param = "discounts",
): Promise<DiscountSpec[]> {
  const specs: DiscountSpec[] = [];
  for (const [i, entry] of (entries ?? []).entries()) {
    onlyOneOf({ [`${param}[${i}][coupon]`]: entry.coupon, [`${param}[${i}][promotion_code]`]: entry.promotion_code });
    let promotion: SbPromotionCode | null = null;
    let couponId = entry.coupon ?? null;
    if (entry.promotion_code) {
      promotion = await ops.store.require("promotion_code", entry.promotion_code, `${param}[${i}][promotion_code]`);
      if (!promotion.active || exhausted(promotion.max_redemptions, promotion.times_redeemed)) {
        throw invalidRequest(`This promotion code cannot be redeemed: '${promotion.code}'.`, { param: `${param}[${i}][promotion_code]` });
      }
      if (promotion.customer && promotion.customer !== customer) {
        throw invalidRequest(`This promotion code cannot be redeemed by this customer: '${promotion.code}'.`, { param: `${param}[${i}][promotion_code]` });
      }
      couponId = promotion.promotion.coupon;
    }
    if (!couponId) continue;
    const coupon = await ops.store.require("coupon", couponId, `${param}[${i}][coupon]`);
    if (!coupon.valid || exhausted(coupon.max_redemptions, coupon.times_redeemed)) {
      throw invalidRequest(`Coupon ${coupon.id} is no longer valid.`, { param: `${param}[${i}][coupon]` });
    }
    specs.push({ coupon, promotion });
  }
  return specs;
}

/** Makes the discounts of a subscription (counting the coupons' and codes' redemptions). */
export async function createDiscounts(
  ops: Ops,
  specs: readonly DiscountSpec[],
  owner: { customer: string | null; subscription: string | null },
): Promise<SbDiscount[]> {
  const discounts: SbDiscount[] = [];
  for (const spec of specs) {
    const end =
      spec.coupon.duration === "repeating" && spec.coupon.duration_in_months
        ? ops.now + spec.coupon.duration_in_months * 30 * 86_400
        : null;
    const discount: SbDiscount = {
      id: newId("di_"),
      object: "discount",
      checkout_session: null,
      customer: owner.customer,
      end,
      invoice: null,
      invoice_item: null,
      promotion_code: spec.promotion?.id ?? null,
      source: { type: "coupon", coupon: spec.coupon.id },
      start: ops.now,
      subscription: owner.subscription,
      subscription_item: null,
    };
    await ops.store.insert("discount", discount);
    const coupon = await ops.store.require("coupon", spec.coupon.id);
    coupon.times_redeemed += 1;
    if (exhausted(coupon.max_redemptions, coupon.times_redeemed)) coupon.valid = false;
    await ops.store.save("coupon", coupon);
    if (spec.promotion) {
      const promo = await ops.store.require("promotion_code", spec.promotion.id);
      promo.times_redeemed += 1;
      await ops.store.save("promotion_code", promo);
    }
    discounts.push(discount);
  }
  return discounts;
}

/** What a coupon takes off `subtotal` (cents; percentages rounded to the nearest cent). */
export function discountAmount(coupon: SbCoupon, subtotal: number): number {
  if (coupon.percent_off !== null) return Math.round((subtotal * coupon.percent_off) / 100);
  return Math.min(coupon.amount_off ?? 0, subtotal);
}

/** Whether a discount still applies to an invoice for the period starting at `periodStart`. */
export function discountApplies(coupon: SbCoupon, discount: Pick<SbDiscount, "end">, first: boolean, periodStart: number): boolean {
  switch (coupon.duration) {
    case "forever":
      return true;
    case "once":
      return first;
    case "repeating":
      return discount.end === null || periodStart < discount.end;
  }
}

/** The amounts of `subtotal` after coupons, in order, never below zero. */
export function applyCoupons(subtotal: number, coupons: readonly SbCoupon[]): { amounts: number[]; total: number } {
  let left = subtotal;
  const amounts = coupons.map((coupon) => {
    const amount = Math.min(discountAmount(coupon, subtotal), left);
    left -= amount;
    return amount;
  });
  return { amounts, total: left };
}
