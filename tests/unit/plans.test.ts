import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compareByTermThenPriority,
  compareTablePlans,
  extraMonths,
  extraMonthsNote,
  formatCents,
  hasRecurringPlan,
  isCurrentPlan,
  pendingChangeNote,
  planButtonLabel,
  isMostPopular,
  isOneTimePlan,
  parsePricingTab,
  paymentPath,
  perMonthPrice,
  planStatus,
  plansForTab,
  plusLabel,
  savingLabel,
  savingsBadge,
  tabOfPlan,
  termInMonths,
  totalPrice,
  type Plan,
} from "~/utils/plans";
import { translatorFor } from "~/i18n/i18n.server";
import { setPortalConfigForTests } from "./portal-config";

/** The English the customer reads: the display rules give catalogue keys (and sentences made with `t`). */
const en = translatorFor("en");

const NO_RENEWAL = { renews: false, renewal_price_cents: null, renewal_price: null, interval_months: null };
const TERMS: Plan["payment_terms"] = { card: NO_RENEWAL, saved_card: NO_RENEWAL, wallet: NO_RENEWAL, paypal: NO_RENEWAL, crypto: NO_RENEWAL };

// The plans as the API seeds them (api/payments/catalog.ts), in the API's order (order_priority). The
// cents the API sends beside each price are those of the test's prices (the display rules only format them).
function plan(overrides: Partial<Plan> & Pick<Plan, "id" | "slug" | "title">): Plan {
  const base = {
    plan_id: `vpn_${overrides.slug}`,
    desktop_label: overrides.title,
    description: "$9.99/month",
    billing_type: "recurring" as const,
    regular_price: 11.99,
    discounted_price: 9.99,
    discount_tag_label: "Save 17%",
    save: "17%",
    order_priority: overrides.id,
    ...overrides,
  };
  return {
    regular_price_cents: Math.round(base.regular_price * 100),
    discounted_price_cents: Math.round(base.discounted_price * 100),
    savings_cents: 0,
    discount_percent: 0,
    per_month_price_cents: 999,
    duration_months: 1,
    extra_months: 0,
    payment_terms: TERMS,
    ...base,
  };
}

const PLANS: Plan[] = [
  plan({ id: 1, slug: "1-month", title: "1 Month", description: "$9.99/month, billed $9.99 every month" }),
  plan({ id: 2, slug: "3-months", title: "3 Months", regular_price: 35.97, discounted_price: 26.97, discount_tag_label: "Save 25%", save: "25%" }),
  plan({ id: 3, slug: "6-months", title: "6 Months", regular_price: 71.94, discounted_price: 47.94, discount_tag_label: "Save 33%", save: "33%" }),
  plan({
    id: 5,
    slug: "1-year",
    title: "1 Year",
    desktop_label: "1 Year (+2 Months Free)",
    regular_price: 143.88,
    discounted_price: 71.88,
    discount_tag_label: "Save 50%",
    save: "50%",
  }),
  plan({
    id: 6,
    slug: "2-years",
    title: "2 Years",
    desktop_label: "2 Years (+3 Months Free)",
    description: "$4.49/month, billed $107.76 every 2 years, plus 3 months free",
    regular_price: 287.76,
    discounted_price: 107.76,
    discount_tag_label: "Save 63%",
    save: "63%",
  }),
  plan({
    id: 7,
    slug: "5-years",
    title: "5 Years",
    billing_type: "single",
    description: "$3.32/month, one payment of $199.00 for 5 years",
    regular_price: 719.4,
    discounted_price: 199,
    discount_tag_label: "Save 72%",
    save: "72%",
  }),
];

const titles = (plans: Plan[]) => plans.map((p) => p.title);

describe("the pricing tab", () => {
  it("is yearly unless ?tab= says monthly", () => {
    expect(parsePricingTab("monthly")).toBe("monthly");
    expect(parsePricingTab("yearly")).toBe("yearly");
    expect(parsePricingTab(null)).toBe("yearly");
    expect(parsePricingTab(undefined)).toBe("yearly");
    expect(parsePricingTab("")).toBe("yearly");
    expect(parsePricingTab("Monthly")).toBe("yearly");
    expect(parsePricingTab("weekly")).toBe("yearly");
  });

  it("puts a plan on the yearly tab from 12 months on", () => {
    expect(tabOfPlan({ slug: "11-months", title: "" })).toBe("monthly");
    expect(tabOfPlan({ slug: "12-months", title: "" })).toBe("yearly");
    expect(tabOfPlan({ slug: "1-year", title: "" })).toBe("yearly");
    expect(tabOfPlan({ slug: "6-months", title: "" })).toBe("monthly");
  });
});

describe("the term in months", () => {
  it("reads N-year and N-month from the slug, singular or plural", () => {
    expect(termInMonths({ slug: "1-month", title: "" })).toBe(1);
    expect(termInMonths({ slug: "3-months", title: "" })).toBe(3);
    expect(termInMonths({ slug: "1-year", title: "" })).toBe(12);
    expect(termInMonths({ slug: "2-years", title: "" })).toBe(24);
    expect(termInMonths({ slug: "5-years", title: "" })).toBe(60);
    expect(termInMonths({ slug: "24-Months", title: "" })).toBe(24);
  });

  it("prefers the slug to the title", () => {
    expect(termInMonths({ slug: "6-months", title: "2 Years" })).toBe(6);
  });

  it("falls back to the title when the slug has no number or unit", () => {
    expect(termInMonths({ slug: "premium", title: "2 Years" })).toBe(24);
    expect(termInMonths({ slug: "year-plan", title: "3 Months" })).toBe(3);
    expect(termInMonths({ slug: "", title: "18 Months" })).toBe(18);
  });

  it("counts as one month when neither names a term", () => {
    expect(termInMonths({ slug: "lifetime", title: "Lifetime" })).toBe(1);
    expect(termInMonths({ slug: "", title: "" })).toBe(1);
    expect(tabOfPlan({ slug: "trial", title: "Trial" })).toBe("monthly");
  });
});

describe("the shown plans", () => {
  it("are the yearly plans by term: 1 Year, 2 Years, 5 Years", () => {
    expect(titles(plansForTab(PLANS, "yearly"))).toEqual(["1 Year", "2 Years", "5 Years"]);
  });

  it("are the monthly plans by term: 1, 3, 6 months", () => {
    expect(titles(plansForTab(PLANS, "monthly"))).toEqual(["1 Month", "3 Months", "6 Months"]);
  });

  it("sort by term before order_priority, and by order_priority (missing = 999) within a term", () => {
    const shuffled = [
      { ...PLANS[4]!, order_priority: 1 },
      { ...PLANS[3]!, order_priority: 9 },
      { ...plan({ id: 8, slug: "1-year", title: "1 Year Promo" }), order_priority: undefined as unknown as number },
      { ...plan({ id: 9, slug: "1-year", title: "1 Year Plus" }), order_priority: 998 },
    ];
    expect(titles(plansForTab(shuffled, "yearly"))).toEqual(["1 Year", "1 Year Plus", "1 Year Promo", "2 Years"]);
    expect(compareByTermThenPriority({ slug: "1-year", title: "" }, { slug: "1-year", title: "", order_priority: 999 })).toBe(0);
  });

  it("are every plan, sorted, when the tab has none", () => {
    expect(titles(plansForTab(PLANS.filter((p) => p.id > 4), "monthly"))).toEqual(["1 Year", "2 Years", "5 Years"]);
    expect(titles(plansForTab([PLANS[2]!, PLANS[0]!], "yearly"))).toEqual(["1 Month", "6 Months"]);
    expect(plansForTab([], "yearly")).toEqual([]);
  });

  it("do not reorder the list they were given", () => {
    const given = [PLANS[5]!, PLANS[3]!];
    plansForTab(given, "yearly");
    expect(titles(given)).toEqual(["5 Years", "1 Year"]);
  });
});

describe("the compare tables", () => {
  it("hold ids 4 or less (monthly) and above 4 (yearly), by term", () => {
    expect(compareTablePlans(PLANS, "monthly").map((p) => p.id)).toEqual([1, 2, 3]);
    expect(compareTablePlans([...PLANS].reverse(), "yearly").map((p) => p.id)).toEqual([5, 6, 7]);
    expect(compareTablePlans([plan({ id: 4, slug: "2-years", title: "2 Years" })], "monthly").map((p) => p.id)).toEqual([4]);
  });
});

describe("the display rules", () => {
  it("extra months come from the label's (+…) part with ' Free' removed", () => {
    expect(extraMonths("1 Year (+2 Months Free)")).toBe("+2 Months");
    expect(extraMonths("2 Years (+3 Months Free)")).toBe("+3 Months");
    expect(extraMonths("1 Year (+1 Month)")).toBe("+1 Month");
    expect(extraMonths("5 Years")).toBeNull();
    expect(extraMonths("")).toBeNull();
    expect(extraMonths(undefined)).toBeNull();
    expect(extraMonthsNote("2 Years (+3 Months Free)")).toBe("+3 Months");
    expect(en(extraMonthsNote("6 Months"))).toBe("No Extra Months");
  });

  it("'Save ' in the discount label becomes '+'", () => {
    expect(plusLabel("Save 63%")).toBe("+63%");
    expect(plusLabel("63% off")).toBe("63% off");
    expect(savingLabel({ discount_tag_label: "Save 50%", save: "50%" })).toBe("+50%");
    expect(savingLabel({ discount_tag_label: "", save: "40%" })).toBe("+40%");
    expect(savingLabel({ discount_tag_label: "", save: "" })).toBe("—");
  });

  it("the savings badge is the discount label, else 'Save {save}'", () => {
    expect(savingsBadge({ discount_tag_label: "Save 63%", save: "63%" }, en)).toBe("Save 63%");
    expect(savingsBadge({ discount_tag_label: " ", save: "20%" }, en)).toBe("Save 20%");
    expect(savingsBadge({ discount_tag_label: "", save: "" }, en)).toBeNull();
  });

  it("the per-month price is the API's per_month_price_cents, formatted (no price parsed from the description)", () => {
    expect(perMonthPrice({ per_month_price_cents: 449 })).toBe("$4.49");
    expect(perMonthPrice({ per_month_price_cents: 332 })).toBe("$3.32");
  });

  it("money is cents formatted as '$' and two decimals, by digits; the total is the discounted price to two decimals", () => {
    expect(formatCents(1199)).toBe("$11.99");
    expect(formatCents(19900)).toBe("$199.00");
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(5)).toBe("$0.05");
    expect(formatCents(450)).toBe("$4.50");
    expect(formatCents(-1078)).toBe("$-10.78");
    expect(formatCents(Number.NaN)).toBe("$0.00");
    expect(totalPrice({ discounted_price_cents: 10776 })).toBe("107.76");
    expect(totalPrice({ discounted_price_cents: 19900 })).toBe("199.00");
  });

  it("'Most popular' is the plan whose title names 2 years or 24 months", () => {
    expect(isMostPopular({ title: "2 Years" })).toBe(true);
    expect(isMostPopular({ title: "2 Year" })).toBe(true);
    expect(isMostPopular({ title: "24 Months" })).toBe(true);
    expect(isMostPopular({ title: "1 Year" })).toBe(false);
    expect(isMostPopular({ title: "5 Years" })).toBe(false);
    expect(isMostPopular({ title: "12 Years" })).toBe(false);
    expect(isMostPopular({ title: "2 Months" })).toBe(false);
    expect(PLANS.filter(isMostPopular).map((p) => p.id)).toEqual([6]);
  });

  it("a subscriber's other recurring plans are changes; the pending change is said on the current plan (decision 028)", () => {
    const mark = { id: 1, subscription_by: "stripe" as const, subs_status: "subscription_started", sub_exp_date: "2027-01-01T00:00:00.000Z" };
    const current = { ...PLANS[3]!, stripe_subscription: { ...mark, pending_plan_id: PLANS[0]!.id, pending_change_at: "2027-01-01T00:00:00.000Z" } };
    const plans = [PLANS[0]!, current, ...PLANS.filter((p) => p.id !== current.id && p.id !== PLANS[0]!.id)];
    expect(hasRecurringPlan(plans)).toBe(current.billing_type === "recurring");
    expect(en(planButtonLabel(current, true))).toBe("Current Plan");
    expect(en(planButtonLabel(PLANS[0]!, true))).toBe("Change to this plan");
    expect(en(planButtonLabel(PLANS[0]!, false))).toBe("Select Plan");
    expect(en(planButtonLabel({ billing_type: "single" }, true))).toBe("Select Plan");
    expect(pendingChangeNote(plans, en)).toBe(`Changes to ${PLANS[0]!.title} on 01 January, 2027`);
    expect(pendingChangeNote(PLANS, en)).toBeNull();
    // A renewing PayPal subscription changes plan too (decision 051); a plan paid once with PayPal, or by crypto, does not.
    const by = (subscription_by: "paypal" | "bitpay", subs_status: string) => [{ ...PLANS[1]!, stripe_subscription: { ...mark, subscription_by, subs_status, pending_plan_id: null, pending_change_at: null } }];
    expect(hasRecurringPlan(by("paypal", "subscription_started"))).toBe(true);
    expect(hasRecurringPlan(by("paypal", "subscription_cancelled"))).toBe(false);
    expect(hasRecurringPlan(by("bitpay", "subscription_started"))).toBe(false);
  });

  it("the current plan (stripe_subscription present) reads 'Current Plan', the others 'Select Plan'", () => {
    const current = { ...PLANS[3]!, stripe_subscription: { id: 1, subscription_by: "stripe" as const, subs_status: "subscription_started", sub_exp_date: "2027-01-01T00:00:00.000Z", pending_plan_id: null, pending_change_at: null } };
    expect(isCurrentPlan(current)).toBe(true);
    expect(en(planStatus(current))).toBe("Current Plan");
    expect(isCurrentPlan(PLANS[3]!)).toBe(false);
    expect(en(planStatus(PLANS[3]!))).toBe("Select Plan");
  });

  it("the 5-year plan is one-time; buy buttons go to /subscription/payment/{id}", () => {
    expect(PLANS.filter(isOneTimePlan).map((p) => p.id)).toEqual([7]);
    expect(paymentPath({ id: 6 })).toBe("/subscription/payment/6");
  });
});

// The pricing loader against a stand-in for the product API over real HTTP (as portal-loaders.test.ts).
describe("pricing loader", () => {
  const currentPlanMark = { id: 3, subscription_by: "stripe", subs_status: "subscription_started", sub_exp_date: "2027-01-01T00:00:00.000Z", pending_plan_id: null, pending_change_at: null };
  let signedInAnswer: "ok" | "fail" | "down" = "ok";
  let anonymousAnswer: "ok" | "fail" | "down" = "ok";
  const standIn = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const down = req.url === "/api/plans" ? anonymousAnswer === "down" : signedInAnswer === "down";
    // Down: the connection drops without an answer, as when the API is not there.
    if (down) return req.socket.destroy();
    if (req.url === "/api/plans" && req.method === "GET") {
      return anonymousAnswer === "ok" ? reply(200, { status: true, data: PLANS }) : reply(500, { status: false, message: "Boom" });
    }
    if (req.url === "/api/subscription/plans" && req.method === "POST") {
      if (req.headers.authorization !== "Bearer good-token") return reply(401, { status: false, message: "Unauthenticated." });
      if (signedInAnswer === "fail") return reply(500, { status: false, message: "Boom" });
      return reply(200, { status: true, data: PLANS.map((p) => (p.id === 5 ? { ...p, stripe_subscription: currentPlanMark } : p)) });
    }
    return reply(404, { status: false, message: "Not found." });
  });
  let pricing: typeof import("~/routes/pricing");
  let sessions: typeof import("~/utils/session.server");
  // One load context per request, as server.ts makes it: the API calls made for a request share one deadline.
  const context = () => ({ clientIp: "203.0.113.7", cspNonce: "" });

  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
    setPortalConfigForTests({
      API_URL: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`,
      SESSION_SECRET: "unit-test-session-secret-0123456789abcdef",
      API_TIMEOUT_MS: "2000",
    });
    pricing = await import("~/routes/pricing");
    sessions = await import("~/utils/session.server");
  });

  afterAll(() => {
    standIn.close();
  });

  async function request(path: string, token?: string) {
    const headers: Record<string, string> = {};
    if (token) headers.Cookie = (await sessions.commitTokenSession(new Request("http://portal.test/"), token)).split(";")[0]!;
    return new Request(`http://portal.test${path}`, { headers });
  }

  type LoaderData = { signedIn: boolean; plans: Plan[]; failure: string | null; missingChoice: boolean };
  async function load(path: string, token?: string) {
    const result = (await pricing.loader({ request: await request(path, token), context: context(), params: {} })) as unknown;
    if (result instanceof Response) return { response: result, data: null, headers: result.headers };
    const { data, init } = result as { data: LoaderData; init?: { headers?: Record<string, string> } };
    const headers = new Headers(init?.headers);
    return { response: null, data, headers };
  }

  /** What the route's headers export answers for these loader headers. */
  function documentHeaders(loaderHeaders: Headers, parentHeaders = new Headers()) {
    const fn = pricing.headers as (args: { loaderHeaders: Headers; parentHeaders: Headers; actionHeaders: Headers; errorHeaders: undefined }) => Record<string, string>;
    return fn({ loaderHeaders, parentHeaders, actionHeaders: new Headers(), errorHeaders: undefined });
  }

  it("anonymous: the public list, cacheable by a shared cache, varying on Cookie", async () => {
    signedInAnswer = "ok";
    anonymousAnswer = "ok";
    const { data, headers } = await load("/pricing");
    expect(data?.signedIn).toBe(false);
    expect(data?.plans.some((p) => p.stripe_subscription)).toBe(false);
    expect(documentHeaders(headers)).toEqual({ "Cache-Control": "public, max-age=60, s-maxage=300", Vary: "Cookie" });
    // A response that sets a cookie (a consumed toast) is never shared.
    const withCookie = new Headers({ "Set-Cookie": "toast=1" });
    expect(documentHeaders(headers, withCookie)["Cache-Control"]).toBe("private, no-store");
  });

  it("signed in: the user's list with the current plan marked, private", async () => {
    const { data, headers } = await load("/pricing", "good-token");
    expect(data?.signedIn).toBe(true);
    const current = data!.plans.filter(isCurrentPlan);
    expect(current.map((p) => p.id)).toEqual([5]);
    expect(en(planStatus(current[0]!))).toBe("Current Plan");
    expect(documentHeaders(headers)).toEqual({ "Cache-Control": "private, no-store", Vary: "Cookie" });
  });

  it("signed in, the user's list failing: the anonymous list, still private", async () => {
    signedInAnswer = "fail";
    const { data, headers } = await load("/pricing", "good-token");
    signedInAnswer = "ok";
    expect(data?.signedIn).toBe(true);
    expect(data?.plans).toHaveLength(6);
    expect(data?.failure).toBeNull();
    expect(documentHeaders(headers)["Cache-Control"]).toBe("private, no-store");
  });

  it("a failing product list renders the spec's message and is not cached", async () => {
    anonymousAnswer = "fail";
    const { data, headers } = await load("/pricing");
    anonymousAnswer = "ok";
    expect(data?.plans).toEqual([]);
    expect(en(data?.failure ?? "")).toBe("Failed to fetch product list");
    expect(documentHeaders(headers)["Cache-Control"]).toBe("private, no-store");
  });

  it("the no-JavaScript chooser redirects a valid plan to checkout, and asks for one otherwise", async () => {
    const chosen = await load("/pricing?tab=yearly&plan=6&buy=1");
    expect(chosen.response?.status).toBe(302);
    expect(chosen.response?.headers.get("Location")).toBe("/subscription/payment/6");
    expect(chosen.response?.headers.get("Vary")).toBe("Cookie");
    const none = await load("/pricing?tab=yearly&buy=1");
    expect(none.data?.missingChoice).toBe(true);
    const unknown = await load("/pricing?plan=4&buy=1");
    expect(unknown.data?.missingChoice).toBe(true);
    // The current plan cannot be bought again from the chooser.
    const current = await load("/pricing?plan=5&buy=1", "good-token");
    expect(current.data?.missingChoice).toBe(true);
    expect((await load("/pricing?tab=monthly")).data?.missingChoice).toBe(false);
  });

  it("an unreachable API is the 503 page", async () => {
    anonymousAnswer = "down";
    try {
      await expect(load("/pricing")).rejects.toMatchObject({ status: 503 });
      // Signed in too: no fallback can reach an API that is down.
      signedInAnswer = "down";
      await expect(load("/pricing", "good-token")).rejects.toMatchObject({ status: 503 });
    } finally {
      anonymousAnswer = "ok";
      signedInAnswer = "ok";
    }
  });
});
