/**
 * Sandbox mode's business clock lives in the database (sandbox migration 0002, SharedOffsetClock):
 * several API instances on one database agree on the time after one of them moves it, concurrent
 * advances add up, and what comes due runs once. SQLite, and PostgreSQL with TEST_DATABASE_URL.
 * These instances run with the clock createApi makes in sandbox mode (not the tests' TestClock).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../api/http/app";
import { loadApiConfig } from "../../api/platform/config";
import { insertUser } from "../support/accounts";
import { GOOD_CARD } from "../support/cards";
import { MemoryLogger, type TestApi, type TestDatabase, databases, listen, request } from "./harness";
import { newKey, paymentMethod } from "./payment-support";

const DAY_MS = 86_400_000;

interface Instance {
  api: Api;
  baseUrl: string;
  close(): Promise<void>;
}

async function start(databaseUrl: string): Promise<Instance> {
  const config = loadApiConfig({ DATABASE_URL: databaseUrl, SANDBOX: "true" });
  const api = await createApi({ config, logger: new MemoryLogger() });
  const http = await listen(api.app);
  return {
    api,
    baseUrl: `http://127.0.0.1:${http.port}`,
    async close() {
      await http.close();
      await api.close().catch(() => undefined);
    },
  };
}

/** The business time an instance answers with: /dev/clock's <time datetime>. */
async function timeOf(instance: Instance): Promise<number> {
  const page = await request(instance.baseUrl, "GET", "/dev/clock");
  const iso = /<time datetime="([^"]+)"/.exec(page.text)?.[1];
  if (!iso) throw new Error(`no time on /dev/clock: ${page.text}`);
  return Date.parse(iso);
}

async function advance(instance: Instance, days: number): Promise<void> {
  const res = await request(instance.baseUrl, "POST", "/dev/clock", { form: { days: String(days) } });
  // The 303 back to /dev/clock is followed.
  expect(res.status, res.text).toBe(200);
  expect(res.text).toContain("Test clock (sandbox)");
}

describe.each(databases({ postgres: "the clock shared through the database, due work once" }))("the sandbox's business clock is shared through the database ($name)", (kind) => {
  let database: TestDatabase;
  let first: Instance;
  let second: Instance;

  beforeAll(async () => {
    database = await kind.createMigrated();
    first = await start(database.url);
    second = await start(database.url);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await database?.drop();
  });

  it("two instances agree on the time after one advances; concurrent advances add up", async () => {
    const before = await timeOf(second);
    expect(Math.abs(before - Date.now())).toBeLessThan(60_000);
    await advance(first, 3);
    const seen = await timeOf(second);
    expect(seen - Date.now()).toBeGreaterThan(3 * DAY_MS - 60_000);
    expect(seen - Date.now()).toBeLessThan(3 * DAY_MS + 60_000);

    await Promise.all([advance(first, 2), advance(second, 5), advance(first, 1)]);
    for (const instance of [first, second]) {
      const offset = (await timeOf(instance)) - Date.now();
      expect(offset).toBeGreaterThan(11 * DAY_MS - 60_000);
      expect(offset).toBeLessThan(11 * DAY_MS + 60_000);
    }
  });

  it("advance on one instance, then both run their due jobs: a card plan renews once", async () => {
    // A card customer on the monthly plan, paid on the first instance (at the shared time).
    const t = {
      post: (path: string, o?: Parameters<typeof request>[3]) => request(first.baseUrl, "POST", path, o),
    } as unknown as TestApi;
    const email = "clock-card@example.com";
    const userId = await insertUser(first.api.db, { email, password: "clock-password" });
    const login = await request(first.baseUrl, "POST", "/api/user/login", { json: { email, password: "clock-password" } });
    const token = login.body.data.token as string;
    const paid = await request(first.baseUrl, "POST", "/api/payments/card", {
      token,
      json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD_CARD), planId: 1, email },
    });
    expect(paid.status, paid.text).toBe(200);

    // 32 days on, moved by the second instance; both instances run their jobs at once, twice over.
    await advance(second, 32);
    await Promise.all([first.api.runDueJobs(), second.api.runDueJobs(), first.api.runDueJobs(), second.api.runDueJobs()]);
    const charges = await first.api.db.selectFrom("transactions").select("status").where("user_id", "=", userId).orderBy("id").execute();
    expect(charges.map((row) => row.status)).toEqual(["paid", "paid"]);
    await Promise.all([first.api.runDueJobs(), second.api.runDueJobs()]);
    expect(await first.api.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(2);
  });
});
