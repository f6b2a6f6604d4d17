import type { ApiSchemas } from "~/utils/api.server";
import { discountPercent, formatMoney } from "~/utils/plans";

// The order summary's numbers and the plan's terms (commerce §5, §9). Shared by server and browser.

type Plan = Pick<ApiSchemas["Plan"], "title" | "slug" | "billing_type" | "regular_price" | "discounted_price"> &
  Partial<Pick<ApiSchemas["Plan"], "desktop_label">>;
type Coupon = Pick<ApiSchemas["CouponQuote"], "total" | "discount_amount"> | null;

export function orderSummary(plan: Plan, coupon: Coupon) {
  const discounted = plan.discounted_price || plan.regular_price;
  return {
    savePercent: discountPercent(plan.regular_price, discounted),
    savings: Math.round((plan.regular_price - discounted) * 100) / 100,
    total: coupon ? coupon.total : Math.round(discounted * 100) / 100,
  };
}

/** "1 month", "3 months", "2 years" from the slug (1-month, 3-months, 2-years). */
export function termLabel(slug: string): string {
  const match = /^(\d+)-(month|year)s?$/.exec(slug);
  if (!match) return slug;
  const count = Number(match[1]);
  return `${count} ${match[2]}${count === 1 ? "" : "s"}`;
}

/** What the customer agrees to: renewal (and how to stop it), or a one-time payment. */
export function planTerms(plan: Plan, total: number): string {
  const term = termLabel(plan.slug);
  if (plan.billing_type === "single") {
    return `One-time payment of ${formatMoney(total)} for ${term}. It does not renew: nothing more is charged.`;
  }
  const renewal = formatMoney(plan.discounted_price);
  return `You pay ${formatMoney(total)} now. Your plan renews automatically every ${term} at ${renewal} until you turn auto-renewal off, at least 24 hours before the end of the billing cycle.`;
}

/** The paid months of a plan, from its slug (1-month, 2-years). */
export function paidMonths(slug: string): number {
  const match = /^(\d+)-(month|year)s?$/.exec(slug);
  if (!match) return 0;
  return Number(match[1]) * (match[2] === "year" ? 12 : 1);
}

/** The free months the first payment adds, from the plan's label ('1 Year (+2 Months Free)'). */
export function bonusMonths(plan: Plan): number {
  const match = /\(\+(\d+) Months? Free\)/.exec(plan.desktop_label ?? "");
  return match ? Number(match[1]) : 0;
}

/** 'year', 'month', '3 months'. */
function everyLabel(slug: string): string {
  const term = termLabel(slug);
  return term.startsWith("1 ") ? term.slice(2) : term;
}

function monthsLabel(count: number): string {
  return `${count} month${count === 1 ? "" : "s"}`;
}

/**
 * What the payment buys, said plainly before paying (docs/decisions/029): the months (bonus months
 * included), and what renews then at what price. The first term's end date is added by the server
 * (it formats dates), from the product's time.
 */
export function purchaseTerms(plan: Plan) {
  const paid = paidMonths(plan.slug);
  const bonus = bonusMonths(plan);
  return {
    months: paid + bonus,
    buys: bonus > 0 ? `${monthsLabel(paid + bonus)} (${monthsLabel(paid)} + ${monthsLabel(bonus)} free)` : monthsLabel(paid),
    renews:
      plan.billing_type === "recurring"
        ? `Then it renews at ${formatMoney(plan.discounted_price)} every ${everyLabel(plan.slug)}, until you turn auto-renewal off.`
        : "It does not renew: nothing more is charged.",
  };
}

/** Whether PayPal pays this plan as a subscription that renews (else one order): PayPal bills at most yearly. */
export function paypalRenews(plan: Pick<Plan, "slug" | "billing_type">): boolean {
  return plan.billing_type === "recurring" && paidMonths(plan.slug) <= 12;
}

/**
 * The plan's terms as PayPal pays them (decision 039): PayPal bills at most yearly, so the 5-year and the
 * 2-year plans are one payment that does not renew; the others are a PayPal subscription that renews.
 */
export function paypalTerms(plan: Plan, total: number): string {
  const term = termLabel(plan.slug);
  if (!paypalRenews(plan)) {
    return `With PayPal you pay ${formatMoney(total)} once for ${term}. It does not renew: nothing more is charged.`;
  }
  return `With PayPal you pay ${formatMoney(total)} now. PayPal then collects ${formatMoney(plan.discounted_price)} every ${term} until you turn auto-renewal off, at least 24 hours before the end of the billing cycle.`;
}
