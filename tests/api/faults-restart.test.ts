import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, createDatabase } from "../../api/platform/db";
import { SANDBOX_PUBLISHABLE_KEY } from "../../api/sandboxes/stripe";
import { databases } from "./harness";
import { GOOD } from "./payment-support";
import { until } from "../support/until";

// The API process killed (SIGKILL) in the worst moment of a checkout — the gateway has charged the
// card, our side has not recorded it — and started again on the same database (decision 012): the
// payment is neither lost nor doubled. The Stripe sandbox runs inside the API process and keeps its
// state in the same database, so it dies and comes back with it, as its stored objects and held
// webhooks do. The pause point is the sandbox's fault switch, set through STRIPE_SANDBOX_FAULTS:
// the answer to "pay this invoice" hangs after the charge, and the webhooks wait for a later delivery.

const ROOT = new URL("../..", import.meta.url).pathname;
/** Ports of this suite (the faults range, 3600-3649): one per database kind. */
const PORTS = { sqlite: 3620, postgres: 3621 } as const;

const HANG_AFTER_CHARGE = JSON.stringify({
  faults: [{ method: "POST", path: "/v1/invoices/:id/pay", when: "after", kind: "delay", delayMs: 600_000 }],
  deferWebhooks: true,
});

// The standalone API bundled once for every start here, as `npm run api` runs it: starting through tsx
// instead would compile the API again at every start. Inside the worktree (under build/)
// so that its packages resolve from node_modules.
let bundle: string;
beforeAll(async () => {
  mkdirSync(join(ROOT, "build"), { recursive: true });
  const dir = mkdtempSync(join(ROOT, "build", "faults-restart-"));
  bundle = join(dir, "api.js");
  await build({
    entryPoints: [join(ROOT, "api/server.ts")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
  });
  return () => rmSync(dir, { recursive: true, force: true });
}, 120_000);

interface RunningApi {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function startApiProcess(env: Record<string, string>, port: number): Promise<RunningApi> {
  const child = spawn(process.execPath, ["--enable-source-maps", bundle], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", SANDBOX: "true", API_PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const base = `http://127.0.0.1:${port}`;
  // Started when it says so; the output is watched as it comes, not polled.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API did not start: ${output}`)), 120_000); // slow on a busy machine
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/API listening/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`the API exited: ${output}`));
    });
  });
  return { child, base, output: () => output };
}

function kill(api: RunningApi, signal: NodeJS.Signals): Promise<void> {
  if (api.child.exitCode !== null || api.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    api.child.once("exit", () => resolve());
    api.child.kill(signal);
  });
}

async function post(base: string, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

describe.each(databases({ postgres: "a SIGKILL mid-transaction: the server rolls back, the claim is taken over" }))("the API killed mid-checkout and restarted ($name)", (kind) => {
  const running: RunningApi[] = [];
  let db: Database | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const api of running) await kill(api, "SIGKILL");
    await db?.destroy();
    await drop?.();
  });

  it("after the gateway charged and before we recorded: one charge, one paid transaction, the plan active", async () => {
    const database = await kind.create();
    drop = database.drop;
    const port = PORTS[kind.name];
    const env = { DATABASE_URL: database.url, JOBS_INTERVAL_SECONDS: "1" };

    const first = await startApiProcess({ ...env, STRIPE_SANDBOX_FAULTS: HANG_AFTER_CHARGE }, port);
    running.push(first);
    db = createDatabase(database.url);
    // The sandbox's demo account pays for the 1-month plan with a new card.
    const login = await post(first.base, "/api/user/login", { email: "demo@example.com", password: "demo-password" });
    expect(login.status).toBe(200);
    const bearer = { authorization: `Bearer ${login.body.data.token}` };
    const user = await db.selectFrom("users").select("id").where("email", "=", "demo@example.com").executeTakeFirstOrThrow();
    const card = await fetch(`${first.base}/dev/stripe/v1/payment_methods`, {
      method: "POST",
      headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ type: "card", "card[number]": GOOD, "card[exp_month]": "12", "card[exp_year]": String(new Date().getUTCFullYear() + 3), "card[cvc]": "123" }),
    });
    const pm = ((await card.json()) as { id: string }).id;
    const payment = { type: "new-card", paymentMethodId: pm, planId: 1, email: "demo@example.com", idempotency_key: "restart-test-key-0001" };
    const pending = post(first.base, "/api/payments/card", payment, bearer).catch(() => null); // never answers: the process dies

    // The worst moment: the gateway has charged and queued its webhooks; the answer has not come back.
    await until("the charge at the gateway and its held webhooks", async () => {
      const rows = await db!.selectFrom("stripe_sandbox_objects").select(["type", "data"]).where("type", "in", ["charge", "webhook_delivery"]).execute();
      const charged = rows.some((r) => r.type === "charge" && JSON.parse(r.data).status === "succeeded");
      const held = rows.some((r) => r.type === "webhook_delivery" && JSON.parse(r.data).type === "invoice.paid" && JSON.parse(r.data).state === "failed");
      return charged && held;
      // Two minutes: on CI's 2 cores the spawned API shares them with the other suites; a miss shows its log.
    }, { timeoutMs: 120_000 }).catch((error: Error) => {
      throw new Error(`${error.message}; the API's output ends:\n${first.output().slice(-3000)}`);
    });
    await kill(first, "SIGKILL");
    await pending;
    expect(await db.selectFrom("transactions").select("id").where("user_id", "=", user.id).execute()).toEqual([]);

    // Started again on the same database, without faults: the held webhooks are delivered by the
    // scheduled jobs and the payment is recorded.
    const second = await startApiProcess(env, port);
    running.push(second);
    const recorded = await until("the paid transaction", async () => {
      const rows = await db!.selectFrom("transactions").select(["status", "amount_cents"]).where("user_id", "=", user.id).execute();
      return rows.length > 0 ? rows : undefined;
    });
    expect(recorded).toEqual([{ status: "paid", amount_cents: 999 }]);
    const login2 = await post(second.base, "/api/user/login", { email: "demo@example.com", password: "demo-password" });
    const bearer2 = { authorization: `Bearer ${login2.body.data.token}` };
    const active = await post(second.base, "/api/subscription/active", {}, bearer2);
    expect(active.body.data.subscription).toMatchObject({ plan_id: 1, subscription_by: "stripe" });

    // The customer presses Pay again: with the same key, once the dead request counts as abandoned
    // (the business clock moves a day), and with a fresh key. Neither charges again.
    const moved = await fetch(`${second.base}/dev/clock`, { method: "POST", redirect: "manual", body: new URLSearchParams({ days: "1" }) });
    expect(moved.status).toBe(303);
    const sameKey = await post(second.base, "/api/payments/card", payment, bearer2);
    // Taken over (not 'still being processed' forever), it finds the plan the webhook recorded.
    expect([sameKey.status, sameKey.body.message]).toEqual([409, "This is already your current plan."]);
    const freshKey = await post(second.base, "/api/payments/card", { ...payment, idempotency_key: "restart-test-key-0002" }, bearer2);
    expect(freshKey.status).toBe(409);
    expect(freshKey.body.message).toBe("This is already your current plan.");

    const charges = await db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", "charge").execute();
    expect(charges.map((r) => JSON.parse(r.data).status)).toEqual(["succeeded"]);
    expect(await db.selectFrom("transactions").select("id").where("user_id", "=", user.id).execute()).toHaveLength(1);
    expect(await db.selectFrom("subscriptions").select("id").where("user_id", "=", user.id).execute()).toHaveLength(1);
    await kill(second, "SIGTERM");
  }, 300_000);
});
