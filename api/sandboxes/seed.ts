import type { PasswordHasher } from "../identity/passwords";
import { seedWelcomeCoupon } from "../payments/coupons";
import type { Clock } from "../platform/clock";
import type { Database } from "../platform/db";

// What exists only in sandbox mode (docs/decisions/019): the demo account and the card sandbox's
// coupon WELCOME10 (DESIGN §2).

export const DEMO_EMAIL = "demo@example.com";
export const DEMO_PASSWORD = "demo-password";
export const DEMO_NAME = "Demo User";

/** Idempotent: inserts the demo account when its email is missing (an existing one is never touched). */
export async function seedSandbox(db: Database, clock: Clock, passwords: PasswordHasher): Promise<void> {
  await seedWelcomeCoupon(db, clock.now());
  const existing = await db.selectFrom("users").select("id").where("email", "=", DEMO_EMAIL).executeTakeFirst();
  if (existing) return;
  const now = clock.now().toISOString();
  await db
    .insertInto("users")
    .values({
      email: DEMO_EMAIL,
      name: DEMO_NAME,
      password_hash: await passwords.hash(DEMO_PASSWORD),
      email_verified_at: now,
      agreement_at: now,
      newsletter: 0,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column("email").doNothing())
    .execute();
}
