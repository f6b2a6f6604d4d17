// `npm run load` (200 virtual users, 60 s) and `npm run load:short` (20 users, 10 s; part of `npm test`):
// mixed traffic against the built server on loopback, driven by autocannon — one instance per kind of
// virtual user, each connection one user with its own cookies (autocannon's per-connection context).
// Bars: no errors or timeouts, no 5xx (client side and in the server's log), no error on the server's
// stderr, and nothing lost: every checkout a user completed is one paid transaction in the database,
// the gateway's completed sessions and the transactions agree, no gateway reference twice.
// p50/p99 latency per route is printed (figures are machine-dependent; there is no latency bar).
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import { type Account, portalSignIn, signUpThroughApi } from "../tests/support/accounts";
import { GOOD_CARD } from "../tests/support/cards";
import { uniqueEmail } from "../tests/support/emails";
import { LOOPBACK_LIMITS, inBatches, percentile, startQualityServer } from "./quality-server";

const { values: args } = parseArgs({
  options: {
    short: { type: "boolean", default: false },
    users: { type: "string" },
    seconds: { type: "string" },
    rate: { type: "string" },
  },
});
const USERS = Number(args.users ?? (args.short ? 20 : 200));
const SECONDS = Number(args.seconds ?? (args.short ? 10 : 60));
/** Requests per second each virtual user sends at most: a user reads a page before the next click. */
const RATE = Number(args.rate ?? 1);
const PORT = Number(process.env.LOAD_PORT ?? 3400);
/** The API's per-account limit (api/http/routes/payments.ts): hosted sessions started per account and hour. */
const PAYMENT_ATTEMPTS_PER_HOUR = 20;
const CARD = { card_number: GOOD_CARD, card_expiry: `12 / ${(new Date().getUTCFullYear() + 4) % 100}`, card_cvc: "123", billing_name: "Load Tester", billing_postal_code: "10115" };
const ONE_TIME_PLAN = 7;
const RECURRING_PLAN = 6;

// Share of the virtual users per kind (sum 1).
const MIX = { pricing: 0.3, signIn: 0.1, home: 0.2, billing: 0.2, checkout: 0.2 } as const;

type RouteStats = { latencies: number[]; statuses: Map<number, number>; failures: number };
const routeStats = new Map<string, RouteStats>();
const failures: string[] = [];
function statsOf(route: string): RouteStats {
  let stats = routeStats.get(route);
  if (!stats) routeStats.set(route, (stats = { latencies: [], statuses: new Map(), failures: 0 }));
  return stats;
}
function fail(route: string, message: string) {
  statsOf(route).failures++;
  if (failures.length < 50) failures.push(`${route}: ${message}`);
}

type Headerish = Record<string, string | string[] | undefined> | undefined;
/** What autocannon keeps per connection (reset at each loop of its requests). */
type Context = { route?: string; cookie?: string; flow?: Flow };
const ctx = (context: object) => context as Context;

/** A small cookie jar: what a browser would send back. */
function setCookies(jar: Record<string, string>, headers: Headerish) {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== "set-cookie" || value === undefined) continue;
    for (const cookie of Array.isArray(value) ? value : [value]) {
      const [pair] = cookie.split(";");
      const eq = pair!.indexOf("=");
      const key = pair!.slice(0, eq).trim();
      const val = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(cookie) || /max-age=0\b/i.test(cookie) || val === "") delete jar[key];
      else jar[key] = val;
    }
  }
}
const cookieHeader = (jar: Record<string, string>) => Object.entries(jar).map(([k, v]) => `${k}=${v}`).join("; ");
function header(headers: Headerish, name: string): string {
  const found = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return found ? String(Array.isArray(found[1]) ? found[1][0] : found[1]) : "";
}

// Buyers: accounts leased to one checkout at a time, each used for fewer sessions than the API's per-account limit.
type Buyer = Account & { cookie: string; sessions: number; hasRecurring: boolean; leased: boolean };
let buyers: Buyer[] = [];
function leaseBuyer(): Buyer | undefined {
  let best: Buyer | undefined;
  for (const buyer of buyers) if (!buyer.leased && buyer.sessions < PAYMENT_ATTEMPTS_PER_HOUR - 1 && (!best || buyer.sessions < best.sessions)) best = buyer;
  if (best) best.leased = true;
  return best;
}

// A checkout in progress, kept outside autocannon's context so that one cut off by the end of the run can be finished.
type Flow = {
  buyer: Buyer;
  jar: Record<string, string>;
  plan: number;
  key?: string;
  hostedPath?: string;
  successPath?: string;
  returned?: boolean;
  stage: "page" | "hosted" | "pay" | "return" | "done" | "failed";
};
const flows = new Set<Flow>();
let completedCheckouts = 0;
let starved = 0;

async function main() {
  const server = await startQualityServer({
    port: PORT,
    name: "load",
    // The per-account payment limit stays: buyers are spread over enough accounts.
    env: LOOPBACK_LIMITS,
  });
  const base = server.base;
  let exitCode = 1;
  try {
    const counts = {
      pricing: Math.max(1, Math.round(USERS * MIX.pricing)),
      signIn: Math.max(1, Math.round(USERS * MIX.signIn)),
      home: Math.max(1, Math.round(USERS * MIX.home)),
      billing: Math.max(1, Math.round(USERS * MIX.billing)),
      checkout: 0,
    };
    counts.checkout = Math.max(1, USERS - counts.pricing - counts.signIn - counts.home - counts.billing);
    // A checkout is 5 requests, so a user paced at RATE starts at most SECONDS * RATE / 5 of them; an
    // account takes 19 sessions, and each user holds one account while it pays.
    // Unpaced (a large --rate), a checkout still takes well over a second on loopback: count 3 requests/s.
    const pace = Math.min(RATE, 3);
    const buyerCount = Math.ceil((counts.checkout * Math.ceil((SECONDS * pace) / 5)) / (PAYMENT_ATTEMPTS_PER_HOUR - 1)) + counts.checkout + 1;
    const started = Date.now();
    buyers = await inBatches(Array.from({ length: buyerCount }, (_, i) => i), 4, async (i) => {
      const account = await signUpThroughApi(base, uniqueEmail(`load-${i}`), "load-test-password");
      return { ...account, cookie: await portalSignIn(base, account.email, account.password), sessions: 0, hasRecurring: false, leased: false };
    });
    console.log(`Signed up ${buyers.length} buyer accounts through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const common = { url: base, duration: SECONDS, timeout: 30, pipelining: 1, connectionRate: RATE } as const;
    let nextCookie = 0;
    const signedInRoute = (route: string, pathname: string): autocannon.Request => ({
      method: "GET",
      path: pathname,
      setupRequest(request, context) {
        const c = ctx(context);
        c.cookie ??= buyers[nextCookie++ % buyers.length]!.cookie;
        return { ...request, headers: { ...request.headers, cookie: c.cookie } };
      },
      onResponse(status, body, context) {
        ctx(context).route = route;
        if (status !== 200) fail(route, `answered ${status}`);
        else if (!/<h1|<h2/.test(body)) fail(route, "answered a page without a heading");
      },
    });
    const instances: Array<[string, autocannon.Options]> = [
      [
        "pricing",
        {
          ...common,
          connections: counts.pricing,
          requests: [{ method: "GET", path: "/pricing", onResponse: (status, _b, context) => { ctx(context).route = "GET /pricing"; if (status !== 200) fail("GET /pricing", `answered ${status}`); } }],
        },
      ],
      ["sign-in", { ...common, connections: counts.signIn, requests: signInRequests(base) }],
      ["home", { ...common, connections: counts.home, requests: [signedInRoute("GET / (signed in)", "/")] }],
      ["billing", { ...common, connections: counts.billing, requests: [signedInRoute("GET /billing", "/billing")] }],
      ["checkout", { ...common, connections: counts.checkout, requests: checkoutRequests(base) }],
    ];

    console.log(
      `Running ${USERS} virtual users (each at most ${RATE} request/s) for ${SECONDS} s on ${base} (${os.cpus().length} cores): ` +
        Object.entries(counts).map(([kind, n]) => `${kind} ${n}`).join(", "),
    );
    const results = await Promise.all(
      instances.map(
        ([name, options]) =>
          new Promise<[string, autocannon.Result]>((resolve, reject) => {
            const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve([name, result])));
            instance.on("response", (client, status, _bytes, ms) => {
              // autocannon calls onResponse (which names the route in the context) just before this event.
              const iterator = (client as unknown as { requestIterator?: { context?: Context } }).requestIterator;
              const route = iterator?.context?.route ?? name;
              const stats = statsOf(route);
              stats.latencies.push(ms);
              stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
            });
          }),
      ),
    );

    // Checkouts cut off by the end of the run: let the server finish what it received, then finish them as the user would.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const cutOff = [...flows].filter((flow) => (flow.stage === "pay" && flow.hostedPath) || (flow.stage === "return" && flow.successPath));
    for (const flow of cutOff) await finishCheckout(base, flow);
    console.log(`Finished ${cutOff.length} checkouts cut off by the end of the run`);

    await server.stop();
    const db = new Database(server.databaseFile, { readonly: true });
    const buyerEmails = buyers.map((b) => b.email);
    const placeholders = buyerEmails.map(() => "?").join(",");
    const paid = db
      .prepare(
        `SELECT t.gateway_ref, t.subscription_id FROM transactions t JOIN users u ON u.id = t.user_id WHERE t.status = 'paid' AND u.email IN (${placeholders})`,
      )
      .all(...buyerEmails) as Array<{ gateway_ref: string | null; subscription_id: number | null }>;
    const otherTransactions = (db.prepare(`SELECT count(*) AS n FROM transactions t JOIN users u ON u.id = t.user_id WHERE t.status <> 'paid' OR u.email NOT IN (${placeholders})`).get(...buyerEmails) as { n: number }).n;
    const duplicateRefs = db.prepare("SELECT gateway_ref, count(*) AS n FROM transactions WHERE gateway_ref IS NOT NULL GROUP BY gateway_ref HAVING n > 1").all();
    const completeSessions = (
      db.prepare("SELECT count(*) AS n FROM stripe_sandbox_objects WHERE type = 'checkout_session' AND json_extract(data, '$.status') = 'complete'").get() as { n: number }
    ).n;
    const subscriptionIds = new Set(paid.map((row) => row.subscription_id));
    db.close();

    // Report.
    console.log(`\nPer route (${USERS} users, ${SECONDS} s)`);
    console.log(`  ${"route".padEnd(40)} ${"requests".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}  statuses`);
    for (const [route, stats] of [...routeStats].sort(([a], [b]) => a.localeCompare(b))) {
      const statuses = [...stats.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ");
      console.log(
        `  ${route.padEnd(40)} ${String(stats.latencies.length).padStart(9)} ${percentile(stats.latencies, 50).toFixed(1).padStart(8)} ${percentile(stats.latencies, 99).toFixed(1).padStart(8)}  ${statuses}${stats.failures ? `  (${stats.failures} unexpected)` : ""}`,
      );
    }
    const totals = results.reduce(
      (sum, [, r]) => ({ requests: sum.requests + r.requests.total, errors: sum.errors + r.errors, timeouts: sum.timeouts + r.timeouts, fivexx: sum.fivexx + r["5xx"] }),
      { requests: 0, errors: 0, timeouts: 0, fivexx: 0 },
    );
    for (const [name, r] of results) {
      console.log(`  autocannon ${name.padEnd(9)} ${r.requests.total} requests, ${r.requests.average.toFixed(0)} req/s, errors ${r.errors}, timeouts ${r.timeouts}, 5xx ${r["5xx"]}`);
    }
    console.log(`\nCheckouts completed ('Payment Successful!'): ${completedCheckouts}; paid transactions: ${paid.length}; gateway sessions complete: ${completeSessions}`);
    if (failures.length) console.log(`\nUnexpected answers (first ${failures.length}):\n  ${failures.join("\n  ")}`);
    if (server.serverErrors.length) console.log(`\nServer log 5xx (first 20):\n  ${[...server.serverErrors.slice(0, 20), ...server.loggedErrors.slice(0, 20)].join("\n  ")}`);
    if (server.stderrErrors.length) console.log(`\nServer stderr errors (first 20):\n  ${server.stderrErrors.slice(0, 20).join("\n  ")}`);

    const unexpected = [...routeStats.values()].reduce((sum, s) => sum + s.failures, 0);
    const checks: Array<[string, boolean]> = [
      [`${totals.requests} requests: 0 errors and 0 timeouts (${totals.errors} errors, ${totals.timeouts} timeouts)`, totals.errors === 0 && totals.timeouts === 0],
      [`0 responses of 5xx (client ${totals.fivexx}, server log ${server.serverErrors.length})`, totals.fivexx === 0 && server.serverErrors.length === 0],
      [`every answer as a user expects it (${unexpected} unexpected)`, unexpected === 0],
      [`no error on the server's stderr (${server.stderrErrors.length})`, server.stderrErrors.length === 0],
      [`checkouts happened (${completedCheckouts})`, completedCheckouts > 0],
      [`every completed checkout is one paid transaction (${completedCheckouts} vs ${paid.length})`, completedCheckouts === paid.length],
      [`the gateway's completed sessions match (${completeSessions})`, completeSessions === paid.length],
      [`no gateway reference twice (${duplicateRefs.length}), one subscription per payment`, duplicateRefs.length === 0 && subscriptionIds.size === paid.length && !subscriptionIds.has(null)],
      [`no other transactions (${otherTransactions})`, otherTransactions === 0],
      [`enough buyer accounts for the payment limit (${starved} checkouts found none free)`, starved === 0],
    ];
    console.log("\nBars");
    for (const [label, ok] of checks) console.log(`  ${ok ? "PASS" : "FAIL"}  ${label}`);
    exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    await server.stop();
    server.cleanUp();
  }
  process.exit(exitCode);
}

/** A visitor signs in with the demo account (the no-JS form), sees the home page and signs out. */
function signInRequests(base: string): autocannon.Request[] {
  const form = { origin: base, "content-type": "application/x-www-form-urlencoded" };
  return [
    {
      method: "POST",
      path: "/login",
      headers: form,
      body: new URLSearchParams({ intent: "signin", email: "demo@example.com", password: "demo-password" }).toString(),
      onResponse(status, _body, context, headers) {
        const c = ctx(context);
        c.route = "POST /login";
        const jar: Record<string, string> = {};
        setCookies(jar, headers);
        c.cookie = cookieHeader(jar);
        if (status !== 302 || header(headers, "location") !== "/" || !c.cookie) fail("POST /login", `answered ${status} without a session`);
      },
    },
    {
      method: "GET",
      path: "/",
      setupRequest: (request, context) => ({ ...request, headers: { cookie: ctx(context).cookie ?? "" } }),
      onResponse(status, body, context) {
        ctx(context).route = "GET / (after sign-in)";
        if (status !== 200 || !body.includes("Welcome to the product!")) fail("GET / (after sign-in)", `answered ${status} without the home page`);
      },
    },
    {
      method: "POST",
      path: "/logout",
      setupRequest: (request, context) => ({ ...request, headers: { ...form, cookie: ctx(context).cookie ?? "" } }),
      onResponse(status, _body, context, headers) {
        ctx(context).route = "POST /logout";
        if (status !== 302 || header(headers, "location") !== "/login") fail("POST /logout", `answered ${status}`);
      },
    },
  ];
}

/**
 * The no-JS checkout as autocannon requests (one loop = one purchase): the checkout page, its
 * 'Continue to secure payment page', the sandbox's hosted page's Pay, the return to the portal,
 * and the page that says 'Payment Successful!'.
 */
function checkoutRequests(base: string): autocannon.Request[] {
  const flowOf = (context: object) => {
    const flow = ctx(context).flow;
    // No flow (or a failed one): this request was the idle user's /pricing.
    if (!flow || flow.stage === "failed") {
      ctx(context).route = "GET /pricing";
      return undefined;
    }
    return flow;
  };
  const withCookies = (request: autocannon.Request, flow: Flow, extra: Record<string, string> = {}) => ({
    ...request,
    headers: { ...request.headers, cookie: cookieHeader(flow.jar), ...extra },
  });
  // A step whose previous request got no answer (a timeout or a reset: autocannon moves on) fails the checkout.
  const ready = (context: object, route: string, has: unknown): Flow | undefined => {
    const flow = ctx(context).flow;
    if (!flow || flow.stage === "failed") return undefined;
    if (!has) {
      fail(route, "the previous step got no answer");
      ctx(context).flow = undefined;
      // Once Pay was sent the card may have been charged: such a checkout is finished after the run.
      if (flow.stage === "pay" || flow.stage === "return") return undefined;
      flow.stage = "failed";
      flow.buyer.leased = false;
      flows.delete(flow);
      return undefined;
    }
    return flow;
  };
  // A user who found no free account (or whose checkout failed) browses the pricing page instead.
  const idle = (request: autocannon.Request): autocannon.Request => ({ ...request, method: "GET", path: "/pricing", body: undefined, headers: {} });
  const expect = (route: string, context: object, ok: boolean, message: string) => {
    ctx(context).route = route;
    const flow = ctx(context).flow!;
    if (!ok) {
      fail(route, message);
      flow.stage = "failed";
      flow.buyer.leased = false;
      flows.delete(flow);
    }
    return ok;
  };
  return [
    {
      method: "GET",
      setupRequest(request, context) {
        const buyer = leaseBuyer();
        if (!buyer) {
          starved++;
          return idle(request);
        }
        const [name, value] = buyer.cookie.split("=");
        const flow: Flow = { buyer, jar: { [name!]: value! }, plan: buyer.hasRecurring ? ONE_TIME_PLAN : RECURRING_PLAN, stage: "page" };
        flows.add(flow);
        ctx(context).flow = flow;
        return withCookies({ ...request, path: `/subscription/payment/${flow.plan}` }, flow);
      },
      onResponse(status, body, context, headers) {
        const flow = flowOf(context);
        if (!flow) return;
        setCookies(flow.jar, headers);
        const key = /name="idempotency_key" value="([^"]+)"/.exec(body)?.[1];
        if (expect("GET /subscription/payment/:plan", context, status === 200 && Boolean(key), `answered ${status}${key ? "" : " without the hosted payment form"}`)) flow.key = key;
      },
    },
    {
      method: "POST",
      setupRequest(request, context) {
        const flow = ready(context, "POST /subscription/payment/:plan (hosted)", ctx(context).flow?.key);
        if (!flow) return idle(request);
        flow.stage = "hosted";
        flow.buyer.sessions++;
        return withCookies(
          { ...request, path: `/subscription/payment/${flow.plan}`, body: new URLSearchParams({ intent: "hosted", idempotency_key: flow.key! }).toString() },
          flow,
          { origin: base, "content-type": "application/x-www-form-urlencoded" },
        );
      },
      onResponse(status, _body, context, headers) {
        const flow = flowOf(context);
        if (!flow) return;
        setCookies(flow.jar, headers);
        const location = header(headers, "location");
        const hosted = location ? new URL(location, base).pathname : "";
        if (expect("POST /subscription/payment/:plan (hosted)", context, status === 302 && hosted.startsWith("/dev/stripe/checkout/"), `answered ${status} to ${location}`)) {
          flow.hostedPath = hosted;
        }
      },
    },
    {
      method: "POST",
      setupRequest(request, context) {
        const flow = ready(context, "POST /dev/stripe/checkout/:id (Pay)", ctx(context).flow?.hostedPath);
        if (!flow) return idle(request);
        flow.stage = "pay";
        return { ...request, path: flow.hostedPath!, body: new URLSearchParams(CARD).toString(), headers: { origin: base, "content-type": "application/x-www-form-urlencoded" } };
      },
      onResponse(status, _body, context, headers) {
        const flow = flowOf(context);
        if (!flow) return;
        const location = header(headers, "location");
        if (expect("POST /dev/stripe/checkout/:id (Pay)", context, status === 303 && location.includes("session_id="), `answered ${status} to ${location}`)) {
          const url = new URL(location, base);
          flow.successPath = `${url.pathname}${url.search}`;
          flow.stage = "return";
        }
      },
    },
    {
      method: "GET",
      setupRequest(request, context) {
        const flow = ready(context, "GET /subscription/payment/:plan?session_id", ctx(context).flow?.successPath);
        if (!flow) return idle(request);
        return withCookies({ ...request, path: flow.successPath! }, flow);
      },
      onResponse(status, _body, context, headers) {
        const flow = flowOf(context);
        if (!flow) return;
        setCookies(flow.jar, headers);
        const location = header(headers, "location");
        if (expect("GET /subscription/payment/:plan?session_id", context, status === 302 && new URL(location || "/x", base).pathname === `/subscription/payment/${flow.plan}`, `answered ${status} to ${location}`)) {
          flow.returned = true;
        }
      },
    },
    {
      method: "GET",
      setupRequest(request, context) {
        const flow = ready(context, "GET /subscription/payment/:plan (paid)", ctx(context).flow?.returned);
        if (!flow) return idle(request);
        return withCookies({ ...request, path: `/subscription/payment/${flow.plan}` }, flow);
      },
      onResponse(status, body, context) {
        const flow = flowOf(context);
        if (!flow) return;
        if (expect("GET /subscription/payment/:plan (paid)", context, status === 200 && body.includes("Payment Successful!"), `answered ${status} without 'Payment Successful!'`)) {
          completeFlow(flow);
        }
      },
    },
  ];
}

function completeFlow(flow: Flow) {
  flow.stage = "done";
  completedCheckouts++;
  if (flow.plan === RECURRING_PLAN) flow.buyer.hasRecurring = true;
  flow.buyer.leased = false;
  flows.delete(flow);
}

/** Finishes a checkout cut off after its Pay was sent: Pay again (the sandbox does not charge twice), return, check the page. */
async function finishCheckout(base: string, flow: Flow) {
  const route = "finish cut-off checkout";
  const send = async (pathname: string, init: RequestInit = {}) => {
    const started = performance.now();
    const response = await fetch(`${base}${pathname}`, { redirect: "manual", ...init, headers: { cookie: cookieHeader(flow.jar), ...init.headers } });
    const stats = statsOf(route);
    stats.latencies.push(performance.now() - started);
    stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
    const setCookie = response.headers.getSetCookie();
    if (setCookie.length) setCookies(flow.jar, { "set-cookie": setCookie });
    return response;
  };
  if (flow.stage === "pay") {
    const paid = await send(flow.hostedPath!, {
      method: "POST",
      headers: { origin: base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(CARD),
    });
    const location = paid.headers.get("location") ?? "";
    if (paid.status !== 303 || !location.includes("session_id=")) return fail(route, `Pay answered ${paid.status}`);
    const url = new URL(location, base);
    flow.successPath = `${url.pathname}${url.search}`;
  }
  const back = await send(flow.successPath!);
  if (back.status !== 302) return fail(route, `the return answered ${back.status}`);
  const page = await send(`/subscription/payment/${flow.plan}`);
  if (page.status !== 200 || !(await page.text()).includes("Payment Successful!")) return fail(route, `the page answered ${page.status} without 'Payment Successful!'`);
  completeFlow(flow);
}

await main();
