import type { Database } from "../platform/db";
import type { NewPlan } from "../platform/db/schema";

/**
 * The plans. Ids are explicit and 4 is intentionally unused, so that the spec's rule "id <= 4 is
 * monthly, > 4 is yearly" holds. The per-month price in the description is the discounted price
 * divided by the paid months (free extra months not counted).
 */
export const PLANS: NewPlan[] = [
  {
    id: 1,
    plan_id: "vpn_1_month",
    slug: "1-month",
    title: "1 Month",
    desktop_label: "1 Month",
    description: "$9.99/month, billed $9.99 every month",
    billing_type: "recurring",
    regular_price_cents: 1199,
    discounted_price_cents: 999,
    discount_tag_label: "Save 17%",
    save: "17%",
    order_priority: 1,
    duration_months: 1,
    extra_months: 0,
    most_popular: 0,
  },
  {
    id: 2,
    plan_id: "vpn_3_months",
    slug: "3-months",
    title: "3 Months",
    desktop_label: "3 Months",
    description: "$8.99/month, billed $26.97 every 3 months",
    billing_type: "recurring",
    regular_price_cents: 3597,
    discounted_price_cents: 2697,
    discount_tag_label: "Save 25%",
    save: "25%",
    order_priority: 2,
    duration_months: 3,
    extra_months: 0,
    most_popular: 0,
  },
  {
    id: 3,
    plan_id: "vpn_6_months",
    slug: "6-months",
    title: "6 Months",
    desktop_label: "6 Months",
    description: "$7.99/month, billed $47.94 every 6 months",
    billing_type: "recurring",
    regular_price_cents: 7194,
    discounted_price_cents: 4794,
    discount_tag_label: "Save 33%",
    save: "33%",
    order_priority: 3,
    duration_months: 6,
    extra_months: 0,
    most_popular: 0,
  },
  {
    id: 5,
    plan_id: "vpn_1_year",
    slug: "1-year",
    title: "1 Year",
    desktop_label: "1 Year (+2 Months Free)",
    description: "$5.99/month, billed $71.88 every year, plus 2 months free",
    billing_type: "recurring",
    regular_price_cents: 14388,
    discounted_price_cents: 7188,
    discount_tag_label: "Save 50%",
    save: "50%",
    order_priority: 4,
    duration_months: 12,
    extra_months: 2,
    most_popular: 0,
  },
  {
    id: 6,
    plan_id: "vpn_2_years",
    slug: "2-years",
    title: "2 Years",
    desktop_label: "2 Years (+3 Months Free)",
    description: "$4.49/month, billed $107.76 every 2 years, plus 3 months free",
    billing_type: "recurring",
    regular_price_cents: 28776,
    discounted_price_cents: 10776,
    discount_tag_label: "Save 63%",
    save: "63%",
    order_priority: 5,
    duration_months: 24,
    extra_months: 3,
    most_popular: 1,
  },
  {
    id: 7,
    plan_id: "vpn_5_years",
    slug: "5-years",
    title: "5 Years",
    desktop_label: "5 Years",
    description: "$3.32/month, one payment of $199.00 for 5 years",
    billing_type: "single",
    regular_price_cents: 71940,
    discounted_price_cents: 19900,
    discount_tag_label: "Save 72%",
    save: "72%",
    order_priority: 6,
    duration_months: 60,
    extra_months: 0,
    most_popular: 0,
  },
];

/** Upserts the plans at every start: changed values here apply on the next start. */
export async function upsertPlans(db: Database): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const plan of PLANS) {
      const { id: _id, ...values } = plan;
      await trx
        .insertInto("plans")
        .values(plan)
        .onConflict((oc) => oc.column("id").doUpdateSet(values))
        .execute();
    }
  });
}
