import { sql } from "kysely";
import { expect, test } from "@playwright/test";
import { DEMO, withDatabase } from "../support/e2e";

// The PostgreSQL lane's last project (playwright.pg.config.ts): what the @smoke tests did through the
// browser is in the lane's PostgreSQL database: the sign-ups, the card and PayPal purchases, the demo sign-ins.

test("the smoke tests' sign-ups, purchases and sign-ins are in the PostgreSQL database", async () => {
  await withDatabase(async (db) => {
    const { rows } = await sql<{ version: string }>`select version() as version`.execute(db);
    expect(rows[0]?.version).toMatch(/^PostgreSQL /);

    // sign-up.spec.ts: one account per project (no-js, js), argon2id password, verified.
    const signUps = await db.selectFrom("users").select(["email", "password_hash", "email_verified_at"]).where("email", "like", "signup-%@example.com").execute();
    expect(signUps.length).toBeGreaterThanOrEqual(2);
    for (const user of signUps) {
      expect(user.password_hash).toMatch(/^\$argon2id\$/);
      expect(user.email_verified_at).not.toBeNull();
    }

    // checkout.spec.ts: each buyer holds the 2-year plan and one paid card transaction for it.
    const purchases = await db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .innerJoin("subscriptions", "subscriptions.id", "transactions.subscription_id")
      .select(["users.email", "transactions.status", "transactions.payment_gateway", "subscriptions.plan_id"])
      .where("users.email", "like", "buyer-%@example.com")
      .execute();
    expect(purchases.length).toBeGreaterThanOrEqual(2);
    expect(purchases.every((row) => row.status === "paid" && row.payment_gateway === "stripe" && row.plan_id === 6)).toBe(true);
    expect(new Set(purchases.map((row) => row.email)).size).toBe(purchases.length);

    // sign-in.spec.ts: the demo account's sign-ins made devices with their tokens.
    const demoTokens = await db
      .selectFrom("tokens")
      .innerJoin("users", "users.id", "tokens.user_id")
      .select("tokens.id")
      .where("users.email", "=", DEMO.email)
      .execute();
    expect(demoTokens.length).toBeGreaterThanOrEqual(2);

    // paypal.spec.ts: each customer's monthly plan is a PayPal subscription, paid once through PayPal.
    const paypal = await db
      .selectFrom("transactions")
      .innerJoin("subscriptions", "subscriptions.id", "transactions.subscription_id")
      .select(["transactions.user_id", "transactions.status", "transactions.gateway_ref", "subscriptions.subscription_by", "subscriptions.paypal_sub_id"])
      .where("transactions.payment_gateway", "=", "paypal")
      .execute();
    expect(paypal.length).toBeGreaterThanOrEqual(2);
    for (const row of paypal) {
      expect(row).toMatchObject({ status: "paid", subscription_by: "paypal" });
      expect(row.gateway_ref).toBeTruthy();
      expect(row.paypal_sub_id).toMatch(/^I-/);
    }
    expect(new Set(paypal.map((row) => row.user_id)).size).toBe(paypal.length);
  });
});
