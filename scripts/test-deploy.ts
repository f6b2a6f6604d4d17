/**
 * `npm run test:deploy` (after `npm run build`): the README's scaled deploy, rehearsed. Two built instances
 * (`node build/server.js`, production, sandbox mode, one SESSION_SECRET, each with its embedded API) on one
 * fresh PostgreSQL database, behind Varnish (deploy/varnish.vcl: round robin with health probes, caching as
 * a CDN does, on the answers' own headers). Through the proxy it proves, and prints in numbers:
 *   1. kills: one instance SIGKILLed in the middle of a card purchase (after the gateway charged, before the
 *      payment was recorded, its webhooks held) and in the middle of a webhook's handling: the other delivers
 *      them, records the payment once, the customer's retry charges nothing, and the killed one restarts and
 *      serves. The moments come from the Stripe stand-in's fault switch (STRIPE_SANDBOX_FAULTS, sandbox only);
 *   (and over the whole run: every card charge at the gateway recorded once, every Stripe event recorded once);
 *   2. the @smoke flows without and with JavaScript (playwright.deploy.config.ts);
 *   3. two customers signed in at once never get each other's page (every personalised answer passes the
 *      cache), while anonymous /pricing is served from the cache without a nonce or a cookie;
 *   4. the sign-in failure limit is counted once for both instances, on the client's X-Forwarded-For address;
 *   5. the scheduled jobs run on both instances and each reminder, renewal and plan end happens once.
 * It fails (exit 1) on any leak, double charge or lost write. The database is dropped at the end.
 * TEST_DATABASE_URL names the PostgreSQL server (default postgres://127.0.0.1:5432/test); DEPLOY_PORT the
 * first of the four ports it uses (default 3680: proxy, instance a, instance b, Varnish's admin port);
 * `--skip kill,smoke` leaves phases out. Logs: data/deploy-<port>/ (each instance's, Varnish's).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { type Database, createDatabase, withDefaultUser } from "../api/platform/db";
import { SANDBOX_PUBLISHABLE_KEY } from "../api/sandboxes/stripe";
import { DEFAULT_PASSWORD, insertSubscription, insertUser, portalSignIn } from "../tests/support/accounts";
import { GOOD_CARD, digitsOf } from "../tests/support/cards";
import { uniqueEmail } from "../tests/support/emails";
import { until } from "../tests/support/until";

const started = Date.now();
const ROOT = path.resolve(import.meta.dirname, "..");
const VARNISHD = process.env.VARNISHD ?? "/usr/sbin/varnishd";
const FIRST_PORT = Number(process.env.DEPLOY_PORT ?? 3680);
const PORTS = { proxy: FIRST_PORT, a: FIRST_PORT + 1, b: FIRST_PORT + 2, admin: FIRST_PORT + 3 };
const BASE = `http://127.0.0.1:${PORTS.proxy}`;
const WORK_DIR = path.join(ROOT, `data/deploy-${PORTS.proxy}`);
const ADMIN_URL = process.env.TEST_DATABASE_URL?.trim() || "postgres://127.0.0.1:5432/test";
const PG_USER = process.env.PGUSER || process.env.USER;
const DATABASE_NAME = `deploy_${randomBytes(6).toString("hex")}`;
const DATABASE_URL = (() => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE_NAME}`;
  return url.toString();
})();
const JOBS_INTERVAL_SECONDS = 1;
/** Sign-in failures one client address may make in the window (both instances together). */
const LOGIN_LIMIT_PER_IP = 6;

/** The gateway's answer to "pay this invoice" hangs after the charge, and its webhooks wait for a later delivery. */
const HANG_AFTER_CHARGE = JSON.stringify({
  faults: [{ method: "POST", path: "/v1/invoices/:id/pay", when: "after", kind: "delay", delayMs: 600_000 }],
  deferWebhooks: true,
  // b's jobs (every second) would otherwise send the held webhooks before a is killed, and the moment
  // would not be the middle (seen once under load: the rehearsal waited in vain for the held delivery).
  holdWebhooksMs: 15_000,
});

/** `--skip kill,smoke`: leaves phases out (while working on one). */
const skipArg = process.argv.indexOf("--skip");
const skipped = new Set(skipArg >= 0 ? (process.argv[skipArg + 1] ?? "").split(",") : []);

/** The invoice.paid webhook's handler asks the gateway for the subscription: that first call hangs. */
const HANG_IN_WEBHOOK = JSON.stringify({ faults: [{ method: "GET", path: "/v1/subscriptions/:id", when: "before", kind: "delay", delayMs: 600_000 }] });

const results: string[] = [];
const timings: string[] = [];
const failures: string[] = [];
function prove(condition: boolean, what: string) {
  if (!condition) failures.push(what);
  return condition;
}
function report(line: string) {
  results.push(line);
  console.log(`  ${line}`);
}

// ---------------------------------------------------------------------------------------------------------
// The arrangement: database, instances, proxy.

type Instance = { name: "a" | "b"; port: number; child: ChildProcess; log: string };
const instances: Partial<Record<"a" | "b", Instance>> = {};
let varnish: ChildProcess | undefined;

async function onAdmin(statement: string) {
  const client = new pg.Client({ connectionString: withDefaultUser(ADMIN_URL, PG_USER), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function instanceEnv(port: number, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PGUSER: PG_USER,
    NODE_ENV: "production",
    SANDBOX: "true",
    PORT: String(port),
    DATABASE_URL,
    PUBLIC_URL: BASE,
    SESSION_SECRET: "deploy-session-secret-0123456789abcdef0123456789",
    // The proxy is on loopback: the client's address is the one it appends to X-Forwarded-For.
    TRUST_PROXY: "loopback",
    JOBS_INTERVAL_SECONDS: String(JOBS_INTERVAL_SECONDS),
    LOGIN_MAX_FAILURES_PER_IP: String(LOGIN_LIMIT_PER_IP),
    LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: String(LOGIN_LIMIT_PER_IP),
    LOGIN_MAX_FAILURES_PER_EMAIL: "1000",
    // The browser flows all come from 127.0.0.1: the other per-address limits stay out of their way.
    CODE_MAX_PER_IP_PER_HOUR: "10000",
    COUPON_MAX_ATTEMPTS_PER_IP: "10000",
    CRYPTO_INVOICE_MAX_PER_IP_PER_HOUR: "10000",
    SUPPORT_MAX_PER_IP_PER_HOUR: "10000",
    ...extra,
  };
}

function startInstance(name: "a" | "b", extra: Record<string, string> = {}): Instance {
  const port = PORTS[name];
  const log = path.join(WORK_DIR, `instance-${name}.log`);
  const out = createWriteStream(log, { flags: "a" });
  const child = spawn(process.execPath, ["build/server.js"], { cwd: ROOT, env: instanceEnv(port, extra), stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const instance = { name, port, child, log };
  instances[name] = instance;
  return instance;
}

async function healthy(instance: Instance) {
  await until(`instance ${instance.name} to answer /healthz`, async () => {
    if (instance.child.exitCode !== null) throw new Error(`instance ${instance.name} exited:\n${readFileSync(instance.log, "utf8").slice(-3000)}`);
    return answersOk(`http://127.0.0.1:${instance.port}/healthz`);
  });
}

/** Whether `url` answers 2xx now (false while nothing listens). */
async function answersOk(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

function kill(instance: Instance, signal: NodeJS.Signals): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    instance.child.once("exit", () => resolve());
    instance.child.kill(signal);
  });
}

const run = promisify(execFile);
async function varnishadm(...args: string[]): Promise<string> {
  const { stdout } = await run("varnishadm", ["-n", path.join(WORK_DIR, "varnish"), ...args]);
  return stdout;
}

/** What the proxy's probe says of a backend now. */
async function probeSays(name: "a" | "b"): Promise<"healthy" | "sick" | "unknown"> {
  const line = (await varnishadm("backend.list")).split("\n").find((l) => new RegExp(`\\b${name}\\s`).test(l));
  return /healthy/i.test(line ?? "") ? "healthy" : /sick/i.test(line ?? "") ? "sick" : "unknown";
}

async function startVarnish() {
  const dir = path.join(WORK_DIR, "varnish");
  mkdirSync(dir, { recursive: true });
  const vcl = readFileSync(path.join(ROOT, "deploy/varnish.vcl"), "utf8")
    .replaceAll("__PORT_A__", String(PORTS.a))
    .replaceAll("__PORT_B__", String(PORTS.b));
  writeFileSync(path.join(WORK_DIR, "varnish.vcl"), vcl);
  writeFileSync(path.join(WORK_DIR, "varnish.secret"), randomBytes(16).toString("hex"));
  const out = createWriteStream(path.join(WORK_DIR, "varnish.log"));
  varnish = spawn(
    VARNISHD,
    [
      "-F",
      "-n", dir,
      "-j", "none",
      "-a", `127.0.0.1:${PORTS.proxy}`,
      "-T", `127.0.0.1:${PORTS.admin}`,
      "-S", path.join(WORK_DIR, "varnish.secret"),
      "-f", path.join(WORK_DIR, "varnish.vcl"),
      "-s", "malloc,64m",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  varnish.stdout!.pipe(out);
  varnish.stderr!.pipe(out);
  await until("Varnish to listen", async () => {
    if (varnish?.exitCode !== null) throw new Error(`varnishd exited:\n${readFileSync(path.join(WORK_DIR, "varnish.log"), "utf8")}`);
    return answersOk(`${BASE}/healthz`);
  });
}

// ---------------------------------------------------------------------------------------------------------
// HTTP through the proxy.

/** The parts of the API's JSON answers (and the card tokenizer's) read here. */
type Json = { id?: string; message?: string; data?: { token?: string; subscription?: { plan_id?: number } | null } };
type Answer = { status: number; headers: Headers; text: string; json: Json | null };

async function through(pathname: string, init: RequestInit & { from?: string } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.from) headers.set("X-Forwarded-For", init.from);
  const response = await fetch(`${BASE}${pathname}`, { redirect: "manual", ...init, headers });
  const text = await response.text();
  let json: Json | null = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: a page.
  }
  return { status: response.status, headers: response.headers, text, json };
}

const postJson = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
  through(pathname, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

async function apiToken(email: string, password: string): Promise<string> {
  const login = await postJson("/api/user/login", { email, password });
  if (login.status !== 200) throw new Error(`API sign-in of ${email} answered ${login.status}: ${login.text}`);
  return login.json!.data!.token!;
}

async function newCard(): Promise<string> {
  const card = await through("/dev/stripe/v1/payment_methods", {
    method: "POST",
    headers: { Authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ type: "card", "card[number]": digitsOf(GOOD_CARD), "card[exp_month]": "12", "card[exp_year]": "2049", "card[cvc]": "123" }),
  });
  if (card.status !== 200) throw new Error(`tokenizing a card answered ${card.status}: ${card.text}`);
  return card.json!.id!;
}

async function createCustomer(db: Database, prefix: string) {
  const email = uniqueEmail(prefix);
  const id = await insertUser(db, { email, password: DEFAULT_PASSWORD, name: `Customer ${prefix}`, agreed: true });
  return { id, email, password: DEFAULT_PASSWORD };
}

const rowsOf = async (db: Database, type: string) =>
  (await db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", type).execute()).map((row) => JSON.parse(row.data));

// ---------------------------------------------------------------------------------------------------------
// The phases.

/** Instance a, (re)started with this fault plan for the gateway stand-in (none: a plain instance), once the proxy sees it. */
async function startA(faults?: string) {
  startInstance("a", faults ? { STRIPE_SANDBOX_FAULTS: faults } : {});
  await healthy(instances.a!);
  await until("the proxy's probe to find a healthy", async () => (await probeSays("a")) === "healthy");
}

/**
 * A customer buys the monthly plan by card through the proxy while b is drained, so that a (started with a
 * fault plan that stops it at `moment`) takes it; a is SIGKILLed there, b finishes the work, the customer
 * presses Pay again through b. Answers the numbers, after checking that nothing was charged twice or lost.
 */
async function killMidPurchase(db: Database, scenario: { name: string; moment: string; reached: (answered: () => boolean) => Promise<boolean>; nextFaults?: string }) {
  const customer = await createCustomer(db, "deploy-kill");
  const chargesBefore = (await rowsOf(db, "charge")).filter((charge) => charge.status === "succeeded").length;
  // The operator drains b for a moment, so that the purchase lands on a (which carries the fault plan).
  await varnishadm("backend.set_health", "b", "sick");
  const token = await apiToken(customer.email, customer.password);
  const bearer = { Authorization: `Bearer ${token}` };
  const payment = { type: "new-card", paymentMethodId: await newCard(), planId: 1, email: customer.email, idempotency_key: `deploy-kill-${randomBytes(6).toString("hex")}` };
  let answered = false;
  const pending = postJson("/api/payments/card", payment, bearer)
    .catch((error: Error) => ({ status: 0, text: error.message }) as Answer)
    .finally(() => void (answered = true));
  await until(scenario.moment, () => scenario.reached(() => answered));
  await varnishadm("backend.set_health", "b", "auto");
  await kill(instances.a!, "SIGKILL");
  const cut = await pending;
  const killedAt = Date.now();
  const recordedAtKill = await db.selectFrom("transactions").select("id").where("user_id", "=", customer.id).execute();
  // A delivery that was under way when a died gets no answer: Stripe sends it again some minutes later (the
  // stand-in after 5 minutes). Its in-flight marks are aged by those minutes instead of waiting them out.
  const inFlight = await db.selectFrom("stripe_sandbox_objects").select(["id", "data"]).where("type", "=", "webhook_delivery").execute();
  let resent = 0;
  for (const row of inFlight) {
    const state = JSON.parse(row.data);
    if (state.state === "failed") {
      // Held (HANG_AFTER_CHARGE's holdWebhooksMs): due now, as Stripe's retry would come while a is down.
      await db.updateTable("stripe_sandbox_objects").set({ data: JSON.stringify({ ...state, not_before_ms: 0 }) }).where("id", "=", row.id).execute();
      continue;
    }
    resent++;
    await db.updateTable("stripe_sandbox_objects").set({ data: JSON.stringify({ ...state, queued_ms: state.queued_ms - 10 * 60_000 }) }).where("id", "=", row.id).execute();
  }

  // b's scheduled jobs deliver the held or resent webhooks: the payment is recorded there.
  const recorded = await until(
    "the paid transaction, recorded by the other instance",
    async () => {
      const rows = await db.selectFrom("transactions").select(["status", "amount_cents"]).where("user_id", "=", customer.id).execute();
      return rows.length > 0 ? rows : undefined;
    },
    { timeoutMs: 30_000 },
  ).catch(() => []);
  const recordedAfterMs = Date.now() - killedAt;
  // The proxy notices the dead instance; the customer presses Pay again, through b.
  await until("the proxy's probe to find a sick", async () => (await probeSays("a")) === "sick");
  const retry = await postJson("/api/payments/card", { ...payment, paymentMethodId: await newCard(), idempotency_key: `deploy-kill-${randomBytes(6).toString("hex")}` }, bearer);
  const active = await postJson("/api/subscription/active", {}, bearer);
  await startA(scenario.nextFaults);

  const charges = (await rowsOf(db, "charge")).filter((charge) => charge.status === "succeeded").length - chargesBefore;
  const transactions = await db.selectFrom("transactions").select(["status", "amount_cents"]).where("user_id", "=", customer.id).execute();
  const subscriptions = await db.selectFrom("subscriptions").select("id").where("user_id", "=", customer.id).execute();
  const name = scenario.name;
  prove(cut.status === 503 || cut.status === 0, `${name}: the cut request answered ${cut.status} (expected the proxy's 503)`);
  prove(recordedAtKill.length === 0, `${name}: ${recordedAtKill.length} transactions were recorded before the kill (the moment was not the middle)`);
  prove(recorded.length === 1 && recorded[0]!.status === "paid" && recorded[0]!.amount_cents === 999, `${name}: the payment was recorded as ${JSON.stringify(recorded)}`);
  prove(retry.status === 409 && /already your current plan|already have a subscription/.test(retry.json?.message ?? ""), `${name}: the retry answered ${retry.status} ${retry.text.slice(0, 200)}`);
  prove(active.json?.data?.subscription?.plan_id === 1, `${name}: the plan is not active: ${active.text.slice(0, 200)}`);
  prove(charges === 1 && transactions.length === 1 && subscriptions.length === 1, `${name}: ${charges} charges, ${transactions.length} transactions, ${subscriptions.length} subscriptions`);
  report(
    `${name}: a SIGKILLed ${scenario.moment} (the cut request: ${cut.status || "no answer"}); ${resent} deliveries under way resent; ` +
      `b recorded the payment ${(recordedAfterMs / 1000).toFixed(1)} s later: charged ${charges}, ${transactions.length} transaction (${recorded[0]?.status ?? "none"}), ` +
      `${subscriptions.length} subscription; the customer's retry: ${retry.status} '${retry.json?.message ?? ""}'`,
  );
}

/** The kills, then a restarted a serving beside b. */
async function kills(db: Database) {
  // 1. After the gateway charged, before the answer came back; the webhooks held (a started with HANG_AFTER_CHARGE).
  await killMidPurchase(db, {
    name: "kill mid-purchase",
    moment: "after the charge, its webhooks held",
    reached: async () => {
      const charged = (await rowsOf(db, "charge")).some((charge) => charge.status === "succeeded");
      const held = (await rowsOf(db, "webhook_delivery")).some((delivery) => delivery.type === "invoice.paid" && delivery.state === "failed");
      return charged && held;
    },
    nextFaults: HANG_IN_WEBHOOK,
  });
  // 2. In the middle of the invoice.paid webhook's handling (its call back to the gateway hangs).
  let hanging: { event: string; since: number } | undefined;
  await killMidPurchase(db, {
    name: "kill mid-webhook",
    moment: "while it handled invoice.paid",
    reached: async (answered) => {
      if (answered()) throw new Error("the purchase was answered: the webhook did not hang");
      // The delivery is under way (its row 'pending') and stays so: its handler hangs. One that goes through
      // is done in milliseconds; a second and a half of it unchanged is the hang.
      const deliveries = await rowsOf(db, "webhook_delivery");
      const underWay = deliveries.find((delivery) => delivery.type === "invoice.paid" && delivery.state === "pending");
      if (!underWay || underWay.event !== hanging?.event) hanging = underWay ? { event: underWay.event, since: Date.now() } : undefined;
      return hanging !== undefined && Date.now() - hanging.since >= 1_500;
    },
  });

  const servedBy = new Map<string, number>();
  for (let i = 0; i < 6; i++) {
    // A page no cache keeps, so each answer says which instance made it.
    const page = await through("/login");
    const key = `${page.status} ${page.headers.get("x-served-by") ?? "?"}`;
    servedBy.set(key, (servedBy.get(key) ?? 0) + 1);
  }
  const restartedServes = servedBy.has("200 a") && [...servedBy.keys()].every((key) => key.startsWith("200 "));
  prove(restartedServes, `restart: after the restart the proxy's answers were ${JSON.stringify([...servedBy])}`);
  report(`restart: a serves again beside b: ${[...servedBy].map(([key, n]) => `${n}× ${key}`).join(", ")}`);
}

/** The @smoke tests through the proxy, both JavaScript projects. */
async function smokeFlows() {
  const flowsStarted = Date.now();
  const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn("npx", ["playwright", "test", "-c", "playwright.deploy.config.ts"], {
      cwd: ROOT,
      env: { ...process.env, DEPLOY_BASE_URL: BASE, E2E_DATABASE_URL: DATABASE_URL },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
  const passed = Number(/(\d+) passed/.exec(outcome.output)?.[1] ?? 0);
  const failed = Number(/(\d+) failed/.exec(outcome.output)?.[1] ?? 0);
  const flaky = Number(/(\d+) flaky/.exec(outcome.output)?.[1] ?? 0);
  // The failing tests' first error lines go into the summary too: CI keeps only the end of the output.
  const errors = outcome.output
    .split("\n")
    .filter((line) => /^\s*(Error:|Expected|Received|\d+\) \[)/.test(line))
    .slice(0, 12)
    .map((line) => `      ${line.trim()}`);
  if (!prove(outcome.code === 0 && passed > 0, `smoke: Playwright exited ${outcome.code} (${passed} passed, ${failed} failed)${errors.length ? `\n${errors.join("\n")}` : ""}`))
    console.log(outcome.output);
  // A flow that failed once and passed on its retry (as in the main run on CI) is said, with its first error above.
  if (flaky > 0) console.log(`  smoke: ${flaky} flaky (passed on the retry):\n${errors.join("\n")}`);
  report(`smoke flows (@smoke, no-js and js): ${passed} passed, ${failed} failed, ${flaky} flaky in ${((Date.now() - flowsStarted) / 1000).toFixed(0)} s`);
}

/** The Host the proxy sends the instances (deploy/varnish.vcl): never in what reaches the client; X-Forwarded-Host is the public one. */
const ORIGIN_HOST = "origin.internal";
const mentionsOrigin = (answer: Answer) => answer.text.includes(ORIGIN_HOST) || (answer.headers.get("location") ?? "").includes(ORIGIN_HOST);

/** Two customers at once never see each other's page; anonymous /pricing comes from the cache, without a nonce or a cookie. */
async function cacheAndPrivacy(db: Database) {
  const pricing: Answer[] = [];
  for (let i = 0; i < 20; i++) pricing.push(await through("/pricing"));
  const hits = pricing.filter((answer) => answer.headers.get("x-cache") === "HIT").length;
  const withCookie = pricing.filter((answer) => answer.headers.has("set-cookie")).length;
  // The shared page is rendered with an empty nonce and a CSP of script hashes (server/public-page-cache.ts).
  const withNonce = pricing.filter((answer) => /\snonce="[^"]+"/.test(answer.text) || /'nonce-/.test(answer.headers.get("content-security-policy") ?? "")).length;
  prove(pricing.every((answer) => answer.status === 200), "cache: /pricing did not always answer 200");
  prove(hits >= 19, `cache: anonymous /pricing: ${hits} hits of 20`);
  prove(withCookie === 0 && withNonce === 0, `cache: anonymous /pricing carried Set-Cookie ${withCookie} times, a nonce ${withNonce} times`);
  prove(/s-maxage=\d+/.test(pricing[0]?.headers.get("cache-control") ?? ""), `cache: /pricing's Cache-Control is ${pricing[0]?.headers.get("cache-control")}`);

  await languagesThroughTheCache();

  const customers = [await createCustomer(db, "deploy-one"), await createCustomer(db, "deploy-two")];
  const sessions = await Promise.all(customers.map((customer) => portalSignIn(BASE, customer.email, customer.password)));
  const personalPaths = ["/", "/pricing", "/billing", "/account", "/_root.data", "/pricing.data"];
  const NAMING_PATHS = new Set(["/", "/billing", "/account", "/_root.data"]);
  let sharedPage = 0;
  let originNamed = pricing.filter(mentionsOrigin).length;
  let answers = 0;
  let cached = 0;
  let leaks = 0;
  let missingName = 0;
  let notPrivate = 0;
  const requestIds = new Set<string>();
  for (let round = 0; round < 3; round++) {
    await Promise.all(
      customers.flatMap((customer, i) =>
        personalPaths.map(async (pathname) => {
          const answer = await through(pathname, { headers: { Cookie: sessions[i]! } });
          answers++;
          if (answer.headers.get("x-cache") === "HIT") cached++;
          const other = customers[1 - i]!;
          if (answer.text.includes(other.email)) leaks++;
          if (answer.status === 200 && NAMING_PATHS.has(pathname) && !answer.text.includes(customer.email)) missingName++;
          // Pricing names nobody, but signed in it is the customer's own render, never the shared page.
          if (pathname === "/pricing" && !/\snonce="[^"]+"/.test(answer.text)) sharedPage++;
          if (!/private|no-store/.test(answer.headers.get("cache-control") ?? "")) notPrivate++;
          if (mentionsOrigin(answer)) originNamed++;
          const id = answer.headers.get("x-request-id") ?? "";
          if (id.startsWith("cdn-")) requestIds.add(id);
        }),
      ),
    );
  }
  prove(cached === 0, `privacy: ${cached} personalised answers came from the cache`);
  prove(leaks === 0, `privacy: ${leaks} answers named the other customer`);
  prove(missingName === 0, `privacy: ${missingName} answers (200) did not name their own customer`);
  prove(originNamed === 0, `host: ${originNamed} answers named the proxy's origin host instead of the public one`);
  prove(sharedPage === 0, `privacy: signed-in /pricing was the shared anonymous page ${sharedPage} times`);
  prove(notPrivate === 0, `privacy: ${notPrivate} personalised answers were not private or no-store`);
  prove(requestIds.size === answers, `request ids: ${requestIds.size} of ${answers} answers echoed the proxy's X-Request-Id`);
  report(`cache: anonymous /pricing ${pricing.length} requests, ${hits} hits, ${withCookie} Set-Cookie, ${withNonce} nonces`);
  report(
    `personalised: 2 customers signed in at once, ${answers} answers over ${personalPaths.length} paths: ${cached} hits, ` +
      `${leaks} naming the other customer, ${missingName} not naming their own, ${sharedPage} the shared /pricing, ${notPrivate} shareable; ${requestIds.size} kept the proxy's X-Request-Id, ${originNamed} named the origin's Host`,
  );
}

/**
 * Anonymous /pricing in each language through the cache (issue 36): one cached copy per language, from the
 * `lang` cookie or Accept-Language (deploy/varnish.vcl normalises it), never one language's copy for another.
 */
async function languagesThroughTheCache() {
  const asks: Array<{ headers: Record<string, string>; expected: string }> = [
    { headers: { "Accept-Language": "de-DE,de;q=0.9,en;q=0.8" }, expected: "de" },
    { headers: { "Accept-Language": "en-US,en;q=0.9" }, expected: "en" },
    { headers: { "Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8" }, expected: "fr" },
    { headers: { "Accept-Language": "es-ES" }, expected: "es" },
    { headers: { "Accept-Language": "ja-JP" }, expected: "en" },
    { headers: { "Accept-Language": "de", Cookie: "lang=fr" }, expected: "fr" },
  ];
  let answers = 0;
  let wrong = 0;
  let hits = 0;
  let repeats = 0;
  for (let round = 0; round < 3; round++) {
    for (const ask of asks) {
      const answer = await through("/pricing", { headers: ask.headers });
      answers++;
      const language = /<html lang="([a-z]+)"/.exec(answer.text)?.[1];
      if (answer.status !== 200 || language !== ask.expected) wrong++;
      if (round > 0) {
        repeats++;
        if (answer.headers.get("x-cache") === "HIT") hits++;
      }
    }
  }
  prove(wrong === 0, `languages: ${wrong} of ${answers} anonymous /pricing answers were not in the language asked for`);
  prove(hits === repeats, `languages: ${hits} of ${repeats} repeated asks in a language came from the cache`);
  report(`languages: anonymous /pricing in ${asks.length} ways of asking (4 languages, a lang cookie): ${answers} answers, ${wrong} in another language, ${hits}/${repeats} repeats from the cache`);
}

/** The sign-in failure limit, counted once for both instances, on the client's address from X-Forwarded-For. */
async function rateLimits(db: Database) {
  const customer = await createCustomer(db, "deploy-limit");
  const addressA = "198.51.100.7";
  const addressB = "203.0.113.9";
  const signIn = (from: string, password: string) =>
    through("/login", {
      method: "POST",
      from,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
      body: new URLSearchParams({ intent: "signin", email: customer.email, password }),
    });
  const tooMany = (answer: Answer) => /Too many failed sign-in attempts/.test(answer.text);
  const servedBy = new Map<string, number>();
  let refusedEarly = 0;
  for (let i = 0; i < LOGIN_LIMIT_PER_IP; i++) {
    const answer = await signIn(addressA, "wrong-password");
    const by = answer.headers.get("x-served-by") ?? "?";
    servedBy.set(by, (servedBy.get(by) ?? 0) + 1);
    if (tooMany(answer)) refusedEarly++;
  }
  const overLimit = await signIn(addressA, customer.password);
  const otherWrong = await signIn(addressB, "wrong-password");
  const otherRight = await signIn(addressB, customer.password);
  prove(refusedEarly === 0, `rate limit: ${refusedEarly} of the first ${LOGIN_LIMIT_PER_IP} failures were refused already`);
  prove(servedBy.size === 2, `rate limit: the failures went to ${JSON.stringify([...servedBy])} (expected both instances)`);
  prove(tooMany(overLimit) && overLimit.status !== 302, `rate limit: the try past the limit from ${addressA} answered ${overLimit.status} without the limit`);
  prove(!tooMany(otherWrong) && !tooMany(otherRight) && otherRight.status === 302, `rate limit: ${addressB} was affected (${otherWrong.status}, ${otherRight.status})`);
  report(
    `rate limit: ${LOGIN_LIMIT_PER_IP} failures from ${addressA} (${[...servedBy].map(([by, n]) => `${n} on ${by}`).join(", ")}) reached the limit: ` +
      `the next try, right password, refused (${overLimit.status}); ${addressB}: wrong password ${tooMany(otherWrong) ? "refused" : "told wrong"}, right password ${otherRight.status === 302 ? "signed in" : otherRight.status}`,
  );
}

/** The scheduled jobs on both instances: each reminder, renewal and plan end happens once. */
async function scheduledJobs(db: Database) {
  // A card plan that renews (the kill phase's customer is one; a fresh one pays here) and a crypto plan that ends.
  const card = await createCustomer(db, "deploy-renew");
  const token = await apiToken(card.email, card.password);
  const paid = await postJson(
    "/api/payments/card",
    { type: "new-card", paymentMethodId: await newCard(), planId: 1, email: card.email, idempotency_key: `deploy-renew-${randomBytes(6).toString("hex")}` },
    { Authorization: `Bearer ${token}` },
  );
  if (paid.status !== 200) throw new Error(`the renewing customer's purchase answered ${paid.status}: ${paid.text}`);
  const crypto = await createCustomer(db, "deploy-crypto");
  await insertSubscription(db, crypto.id, { plan_id: 1, title: "1 Month", subscription_by: "bitpay", subs_status: "subscription_started", days: 30, amount_cents: 999, coupon_code: null });

  const mailsTo = async (email: string) => (await db.selectFrom("mail_outbox").select("subject").where("to_address", "=", email).execute()).map((mail) => mail.subject);
  const counts = async () => {
    const cardMails = await mailsTo(card.email);
    const cryptoMails = await mailsTo(crypto.email);
    return {
      reminders: cardMails.filter((subject) => /renews soon/.test(subject)).length,
      receipts: cardMails.filter((subject) => /receipt/.test(subject)).length,
      renewalCharges: (await db.selectFrom("transactions").select("id").where("user_id", "=", card.id).where("status", "=", "paid").execute()).length - 1,
      cryptoInvoices: (await db.selectFrom("crypto_invoices").select("id").where("user_id", "=", crypto.id).execute()).length,
      cryptoInvoiceMails: cryptoMails.filter((subject) => /renewal invoice/.test(subject)).length,
      planEndedMails: cryptoMails.filter((subject) => /plan has ended/.test(subject)).length,
    };
  };
  type Counts = Awaited<ReturnType<typeof counts>>;
  const advance = async (days: number) => {
    const moved = await through("/dev/clock", { method: "POST", headers: { Origin: BASE, "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ days: String(days) }) });
    if (moved.status !== 303) throw new Error(`/dev/clock answered ${moved.status}`);
  };
  // Day 25: the monthly card plan's reminder (7 days ahead); day 28: the crypto plan's renewal invoice (3 days
  // ahead); day 32: the card plan renewed (charged, a receipt) and the unpaid crypto plan ended.
  const steps: Array<{ days: number; what: string; due: (now: Counts) => boolean }> = [
    { days: 25, what: "the renewal reminder", due: (now) => now.reminders >= 1 },
    { days: 3, what: "the crypto renewal invoice and its email", due: (now) => now.cryptoInvoices >= 1 && now.cryptoInvoiceMails >= 1 },
    { days: 4, what: "the card renewal and the crypto plan's end", due: (now) => now.renewalCharges >= 1 && now.receipts >= 2 && now.planEndedMails >= 1 },
  ];
  const jobsStarted = Date.now();
  for (const step of steps) {
    await advance(step.days);
    await until(step.what, async () => step.due(await counts()));
  }
  // Proving that nothing happens twice takes time: both instances run their jobs every second; after three
  // more seconds each has had its turns at what came due, and every count must still be one.
  await new Promise((resolve) => setTimeout(resolve, 3 * JOBS_INTERVAL_SECONDS * 1000));
  const settled = await counts();
  // Which instance sent the jobs' emails (each logs "Mail to <address>: <subject>"): both take turns.
  const JOB_MAIL = /renews soon|renewal invoice|plan has ended/;
  const sentBy = (name: "a" | "b") =>
    readFileSync(instances[name]!.log, "utf8")
      .split("\n")
      .filter((line) => /"msg":"Mail to [^"]*"/.test(line) && JOB_MAIL.test(line)).length;
  const jobMails = (await db.selectFrom("mail_outbox").select("subject").execute()).filter((mail) => JOB_MAIL.test(mail.subject)).length;
  const byA = sentBy("a");
  const byB = sentBy("b");
  prove(byA + byB === jobMails, `jobs: the instances logged ${byA} + ${byB} job emails, the outbox holds ${jobMails}`);
  const expected: Counts = { reminders: 1, receipts: 2, renewalCharges: 1, cryptoInvoices: 1, cryptoInvoiceMails: 1, planEndedMails: 1 };
  prove(JSON.stringify(settled) === JSON.stringify(expected), `jobs: ${JSON.stringify(settled)}, expected ${JSON.stringify(expected)}`);
  report(
    `jobs (every ${JOBS_INTERVAL_SECONDS} s on both instances, clock moved 25 + 3 + 4 days, ${((Date.now() - jobsStarted) / 1000).toFixed(1)} s): ` +
      `renewal reminders ${settled.reminders}, card renewals charged ${settled.renewalCharges} (receipts ${settled.receipts} with the purchase's), ` +
      `crypto renewal invoices ${settled.cryptoInvoices} (emails ${settled.cryptoInvoiceMails}), plan-ended emails ${settled.planEndedMails}; ` +
      `all customers' job emails: ${jobMails}, sent by a ${byA}, by b ${byB}`,
  );
}

/** Over the whole run: every card charge recorded once, every Stripe webhook recorded once, none left undelivered; /pricing still cached. */
async function ledger(db: Database) {
  const charges = (await rowsOf(db, "charge")).filter((charge) => charge.status === "succeeded").length;
  const recorded = (await db.selectFrom("transactions").select("id").where("payment_gateway", "=", "stripe").where("status", "=", "paid").execute()).length;
  const events = (await rowsOf(db, "event")).map((event) => event.id as string);
  const handled = await db.selectFrom("webhook_events").select("id").where("source", "=", "stripe").execute();
  const handledIds = new Set(handled.map((row) => row.id));
  const deliveries = await rowsOf(db, "webhook_delivery");
  const undelivered = deliveries.length;
  if (undelivered) console.log(`Undelivered: ${JSON.stringify(deliveries)}`);
  const missing = events.filter((id) => !handledIds.has(id)).length;
  prove(charges === recorded, `ledger: ${charges} card charges at the gateway, ${recorded} paid card transactions`);
  prove(missing === 0 && undelivered === 0 && handled.length === handledIds.size, `ledger: ${missing} Stripe events never recorded, ${undelivered} deliveries left`);
  const mails = await db.selectFrom("mail_outbox").select(["text", "html"]).execute();
  const mailsNamingOrigin = mails.filter((mail) => mail.text.includes(ORIGIN_HOST) || mail.html.includes(ORIGIN_HOST)).length;
  prove(mailsNamingOrigin === 0, `host: ${mailsNamingOrigin} emails link to the proxy's origin host`);
  const pricing = await through("/pricing");
  const age = Number(pricing.headers.get("age") ?? 0);
  prove(pricing.headers.get("x-cache") === "HIT" && age > 0, `cache: /pricing at the end: ${pricing.headers.get("x-cache")}, Age ${age}`);
  report(
    `ledger: ${charges} card charges at the gateway, ${recorded} paid card transactions; ${events.length} Stripe events, ${handled.length} recorded (each once), ${undelivered} undelivered; ` +
      `${mails.length} emails, ${mailsNamingOrigin} linking to the origin's Host; /pricing at the end: ${pricing.headers.get("x-cache")}, Age ${age} s`,
  );
}

// ---------------------------------------------------------------------------------------------------------

/** Without Varnish or PostgreSQL a local run is skipped, loudly; CI (CI=true) fails instead. */
async function missingPrerequisite(): Promise<string | null> {
  if (!existsSync(VARNISHD)) return `no Varnish at ${VARNISHD} (apt-get install -y varnish)`;
  try {
    await onAdmin("select 1");
    return null;
  } catch (error) {
    return `no PostgreSQL server at TEST_DATABASE_URL's ${new URL(ADMIN_URL).host} (${error instanceof Error ? error.message : String(error)})`;
  }
}

async function main() {
  if (!existsSync(path.join(ROOT, "build/server.js"))) throw new Error("build/server.js is missing: run `npm run build` first.");
  const missing = await missingPrerequisite();
  if (missing) {
    console.error(`\n!! Deploy rehearsal: ${missing}.\n!! ${process.env.CI ? "CI must run it. FAILING." : "SKIPPED locally; CI fails here."}\n`);
    process.exit(process.env.CI ? 1 : 0);
  }
  rmSync(WORK_DIR, { recursive: true, force: true });
  mkdirSync(WORK_DIR, { recursive: true });
  await onAdmin(`CREATE DATABASE ${DATABASE_NAME}`);
  const db = createDatabase(DATABASE_URL, PG_USER);
  try {
    // Both instances start at once on the empty database: each migrates and seeds, as a deploy does.
    startInstance("a", skipped.has("kill") ? {} : { STRIPE_SANDBOX_FAULTS: HANG_AFTER_CHARGE });
    startInstance("b");
    // Varnish starts beside them (its VCL compiles meanwhile): it answers /healthz once a backend is up.
    await Promise.all([healthy(instances.a!), healthy(instances.b!), startVarnish()]);
    await until("the proxy's probes to find both healthy", async () => (await probeSays("a")) === "healthy" && (await probeSays("b")) === "healthy");
    timings.push(`start ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`Deploy rehearsal: Varnish on ${BASE} in front of instances on ${PORTS.a} and ${PORTS.b}, database ${DATABASE_NAME} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);

    const phases: Array<[string, () => Promise<void>]> = [
      ["kill", () => kills(db)],
      ["cache", () => cacheAndPrivacy(db)],
      ["limits", () => rateLimits(db)],
      ["smoke", () => smokeFlows()],
      ["jobs", () => scheduledJobs(db)],
      ["ledger", () => ledger(db)],
    ];
    for (const [name, phase] of phases) {
      if (skipped.has(name)) continue;
      const phaseStarted = Date.now();
      await phase();
      timings.push(`${name} ${((Date.now() - phaseStarted) / 1000).toFixed(1)} s`);
    }
  } finally {
    await db.destroy().catch(() => undefined);
    for (const instance of Object.values(instances)) if (instance) await kill(instance, "SIGTERM");
    varnish?.kill("SIGTERM");
    await onAdmin(`DROP DATABASE IF EXISTS ${DATABASE_NAME} WITH (FORCE)`).catch((error: Error) => console.error(`Dropping ${DATABASE_NAME}: ${error.message}`));
  }
}

try {
  await main();
} catch (error) {
  failures.push(`the rehearsal stopped: ${error instanceof Error ? error.message : String(error)}`);
}
console.log(`\nDeploy rehearsal: ${results.length} checks reported in ${((Date.now() - started) / 1000).toFixed(0)} s (${timings.join(", ")})`);
if (failures.length > 0) {
  console.error(`\nFAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}`);
  process.exit(1);
}
