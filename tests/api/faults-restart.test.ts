import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, createDatabase } from "../../api/platform/db";
import { SANDBOX_PUBLISHABLE_KEY } from "../../api/sandboxes/stripe";
import { databases } from "./harness";
import { GOOD } from "./payment-support";

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

interface RunningApi {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function startApiProcess(env: Record<string, string>, port: number): Promise<RunningApi> {
  const child = spawn(process.execPath, ["--import", "tsx", "api/server.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", SANDBOX: "true", API_PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000; // tsx compiles the API on start: slow on a busy machine
  while (!/API listening/.test(output)) {
    if (child.exitCode !== null) throw new Error(`the API exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`the API did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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
    }, 120_000).catch((error: Error) => {
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
