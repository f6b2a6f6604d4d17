import type { components } from "./api-types.generated";
import { formatLongDate } from "./dates";
import { DEFAULT_LANGUAGE, INTL_LOCALES, type Language } from "../i18n/languages";

// The pricing page's display rules (commerce §4, §5, §9). Pure functions with no server-only imports:
// the server renders with them and the browser re-renders with them after a tab switch.

export type Plan = components["schemas"]["Plan"];

export type PricingTab = "yearly" | "monthly";

/**
 * `t` as these pure functions need it: a component's (react-i18next) or a loader's (translatorOf). Keys
 * are the catalogue's (app/locales/<language>/pricing.json and checkout.json).
 */
export type Translate = (key: string, options?: Record<string, unknown>) => string;

/** What a sentence with an amount is made with: the page's `t` and its money format (useFormatters, formattersFor). */
export type Words = { t: Translate; money: (cents: number) => string };

/**
 * A plan's name in the page's language: the API's catalogue names its plans in English ('1 Year'), and the
 * catalogue (app/locales/<language>/pricing.json, `pricing.planName.<English name>`) has each in every
 * language; a name it does not know stays as the API gave it.
 */
export function planName(title: string, t: Translate): string {
  return t(`pricing.planName.${title}`, { defaultValue: title });
}

/** The toggle's order on the page; Yearly is the default (commerce §2). `label` is a catalogue key. */
export const PRICING_TABS: ReadonlyArray<{ tab: PricingTab; label: string }> = [
  { tab: "yearly", label: "pricing.tabs.yearly" },
  { tab: "monthly", label: "pricing.tabs.monthly" },
];

/** The struck-through regular price per month that every card shows (commerce §2), in cents. */
export const REGULAR_MONTHLY_PRICE_CENTS = 1199;

/** The yearly compare table flags this plan id (commerce §9). */
export const MOST_POPULAR_TABLE_PLAN_ID = 6;

/** Sort priority of a plan without order_priority (commerce §9). */
const MISSING_ORDER_PRIORITY = 999;

/** The money-back guarantee, in days (commerce §9). */
export const MONEY_BACK_DAYS = 30;

/** `?tab=` as the page reads it: anything but 'monthly' is the default, yearly. */
export function parsePricingTab(value: string | null | undefined): PricingTab {
  return value === "monthly" ? "monthly" : "yearly";
}

/** Months named by "2-years", "1 Month", "vpn_24_months" (N-year / N-month, plural or not); null when none. */
function termIn(text: string | null | undefined): number | null {
  const match = /(\d+)[\s_-]*(year|month)/i.exec(text ?? "");
  if (!match) return null;
  const count = Number(match[1]);
  return match[2]!.toLowerCase() === "year" ? count * 12 : count;
}

/** The plan's term in months: from the slug, else the title, else one month (commerce §4). */
export function termInMonths(plan: Pick<Plan, "slug" | "title">): number {
  return termIn(plan.slug) ?? termIn(plan.title) ?? 1;
}

/** Yearly when the term is 12 months or more (commerce §4). */
export function tabOfPlan(plan: Pick<Plan, "slug" | "title">): PricingTab {
  return termInMonths(plan) >= 12 ? "yearly" : "monthly";
}

type SortablePlan = Pick<Plan, "slug" | "title"> & { order_priority?: number | null };

/** By term, then order_priority (missing = 999). */
export function compareByTermThenPriority(a: SortablePlan, b: SortablePlan): number {
  return (
    termInMonths(a) - termInMonths(b) ||
    (a.order_priority ?? MISSING_ORDER_PRIORITY) - (b.order_priority ?? MISSING_ORDER_PRIORITY)
  );
}

/** The cards of a tab: its plans sorted; every plan (sorted) when the tab has none (commerce §4). */
export function plansForTab<P extends SortablePlan>(plans: readonly P[], tab: PricingTab): P[] {
  const inTab = plans.filter((plan) => tabOfPlan(plan) === tab);
  return [...(inTab.length > 0 ? inTab : plans)].sort(compareByTermThenPriority);
}

/** The compare table of a tab: ids above 4 are yearly, 4 or less monthly (commerce §5, §9). */
export function compareTablePlans<P extends SortablePlan & Pick<Plan, "id">>(plans: readonly P[], tab: PricingTab): P[] {
  return plans.filter((plan) => (tab === "yearly" ? plan.id > 4 : plan.id <= 4)).sort(compareByTermThenPriority);
}

/** "2 Years (+3 Months Free)" -> "+3 Months"; null when the label has no "(+…)" part (commerce §5). */
export function extraMonths(desktopLabel: string | null | undefined): string | null {
  const match = /\((\+[^)]*)\)/.exec(desktopLabel ?? "");
  if (!match) return null;
  const extra = match[1]!.replace(" Free", "").trim();
  return extra === "+" ? null : extra;
}

/** The extra-months note of a card and of the compare tables: the API's words, else the catalogue's key for 'No Extra Months' (shown through `t`). */
export function extraMonthsNote(desktopLabel: string | null | undefined): string {
  return extraMonths(desktopLabel) ?? NO_EXTRA_MONTHS;
}

/** The catalogue's key for 'No Extra Months'. */
export const NO_EXTRA_MONTHS = "pricing.plan.noExtraMonths";

/** "Save 63%" -> "+63%" (commerce §5). */
export function plusLabel(discountTagLabel: string): string {
  return discountTagLabel.replace("Save ", "+");
}

/** The card's savings badge: the discount label, else "Save {save}"; null when the plan has neither. */
export function savingsBadge(plan: Pick<Plan, "discount_tag_label" | "save">, t: Translate): string | null {
  if (plan.discount_tag_label.trim()) return plan.discount_tag_label.trim();
  return plan.save.trim() ? t("pricing.plan.save", { save: plan.save.trim() }) : null;
}

/** The compare tables' 'Saving' cell: the savings badge with 'Save ' turned into '+'. */
export function savingLabel(plan: Pick<Plan, "discount_tag_label" | "save">): string {
  if (plan.discount_tag_label.trim()) return plusLabel(plan.discount_tag_label.trim());
  return plan.save.trim() ? `+${plan.save.trim()}` : "—";
}

/** Cents as dollars to two decimals ("107.76"), by digits: no floating point; a missing number counts as 0. */
export function twoDecimals(cents: number): string {
  const whole = Number.isFinite(cents) ? Math.round(cents) : 0;
  const digits = String(Math.abs(whole)).padStart(3, "0");
  return `${whole < 0 ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * USD as the product shows it, from cents: "$" and two decimals (commerce §9). The portal's one money
 * formatter: every amount comes from the API in cents, and the portal only formats it (issue 32).
 */
export function formatCents(cents: number, language: Language = DEFAULT_LANGUAGE): string {
  if (language !== DEFAULT_LANGUAGE) return usdIn(language).format((Number.isFinite(cents) ? Math.round(cents) : 0) / 100);
  return `$${twoDecimals(cents)}`;
}

/** USD in another language's own way ("9,99 $", "9,99 $US", "9,99 US$"; issue 36), one formatter per language. */
const usdFormats = new Map<Language, Intl.NumberFormat>();
function usdIn(language: Language): Intl.NumberFormat {
  let format = usdFormats.get(language);
  if (!format) usdFormats.set(language, (format = new Intl.NumberFormat(INTL_LOCALES[language], { style: "currency", currency: "USD" })));
  return format;
}

/** What the plan costs: the discounted price to two decimals (commerce §5). */
export function totalPrice(plan: Pick<Plan, "discounted_price_cents">): string {
  return twoDecimals(plan.discounted_price_cents);
}

/** The card's per-month price, as the API works it out (the description's '$4.49/month'). */
export function perMonthPrice(plan: Pick<Plan, "per_month_price_cents">, money: (cents: number) => string = formatCents): string {
  return money(plan.per_month_price_cents);
}

/**
 * The card marked 'Most popular': its title names 2 years or 24 months (commerce §2). Word-bounded,
 * so that "12 Years" or "124 Months" is not mistaken for it.
 */
export function isMostPopular(plan: Pick<Plan, "title">): boolean {
  return /\b2 Year|\b24 Month/i.test(plan.title);
}

/** The signed-in user's current plan carries stripe_subscription (commerce §3, §4). */
export function isCurrentPlan(plan: Pick<Plan, "stripe_subscription">): boolean {
  return plan.stripe_subscription != null;
}

/** The card button's words (commerce §4), as the catalogue's keys ('Current Plan', 'Select Plan'). */
export function planStatus(plan: Pick<Plan, "stripe_subscription">): "pricing.plan.current" | "pricing.plan.select" {
  return isCurrentPlan(plan) ? "pricing.plan.current" : "pricing.plan.select";
}

/**
 * Whether the account's current plan is a recurring one: its other recurring plans are then changes
 * of plan, not purchases (docs/decisions/028). A PayPal subscription that renews changes plan too, through
 * PayPal's revise (docs/decisions/051); a plan paid once with PayPal does not renew and is not changed.
 */
export function hasRecurringPlan(plans: Pick<Plan, "stripe_subscription" | "billing_type">[]): boolean {
  return plans.some((plan) => {
    const current = plan.stripe_subscription;
    if (!isCurrentPlan(plan) || plan.billing_type !== "recurring" || !current) return false;
    return current.subscription_by === "stripe" || (current.subscription_by === "paypal" && current.subs_status === "subscription_started");
  });
}

/**
 * The change waiting for the next renewal, said on the current plan's card: 'Changes to 1 Month on 21 November, 2026'
 * (decision 028). The date is UTC, so the server's HTML and the browser's agree.
 */
export function pendingChangeNote(
  plans: Pick<Plan, "id" | "title" | "stripe_subscription">[],
  t: Translate,
  longDate: (value: string | Date) => string = formatLongDate,
): string | null {
  const current = plans.find((plan) => isCurrentPlan(plan))?.stripe_subscription;
  if (!current?.pending_plan_id || !current.pending_change_at) return null;
  const next = plans.find((plan) => plan.id === current.pending_plan_id);
  if (!next) return null;
  return t("pricing.plan.pendingChange", { plan: next.title, date: longDate(current.pending_change_at) });
}

/** A card button's words for a subscriber (a catalogue key): the current plan, a change, or (the one-time plan) a purchase. */
export function planButtonLabel(plan: Pick<Plan, "stripe_subscription" | "billing_type">, subscriber: boolean): string {
  if (isCurrentPlan(plan)) return "pricing.plan.current";
  return subscriber && plan.billing_type === "recurring" ? "pricing.plan.changeTo" : planStatus(plan);
}

/** A one-time plan (billing_type single) is paid once and never renews. */
export function isOneTimePlan(plan: Pick<Plan, "billing_type">): boolean {
  return plan.billing_type === "single";
}

/** Where a buy button leads (commerce §2). */
export function paymentPath(plan: Pick<Plan, "id">): string {
  return `/subscription/payment/${plan.id}`;
}
