import { z } from "zod";
import { type Database, isUniqueViolation } from "../platform/db";
import type { Coupon, Plan } from "../platform/db/schema";
import { tryAgainIn } from "../platform/rate-limit";
import { dollars } from "./money";

/*
 * Coupons: percent or amount off a plan's discounted price, limited to some plans, an expiry and a
 * number of redemptions. A coupon lowers the first payment; renewals are charged at the plan's
 * price. With live Stripe a coupon maps to a Stripe promotion code (stripe_promotion_code_id).
 */

/**
 * One answer for every coupon that cannot be used (unknown, expired, used up, another plan): the
 * apply endpoint must not tell a guesser which codes exist (security review, issue 17). The spec
 * gives no coupon texts ('Apply behaviour not shown').
 */
export const COUPON_MESSAGES = {
  invalid: "This coupon code is not valid.",
  applied: "Coupon applied.",
} as const;

/** 'Too many coupon attempts. Please try again in N minutes.' */
export function tooManyCouponAttempts(retryAfterSeconds: number): string {
  return `Too many coupon attempts. ${tryAgainIn(retryAfterSeconds)}`;
}

/** The sandbox's coupon (DESIGN §2): 10 % off any plan, no limit. */
export const WELCOME_COUPON = { code: "WELCOME10", percent_off: 10 } as const;

/** How much a coupon takes off `cents` (never more than the price), rounded to the cent. */
export function couponDiscountCents(coupon: Pick<Coupon, "percent_off" | "amount_off_cents">, cents: number): number {
  const off = coupon.percent_off !== null ? Math.round((cents * coupon.percent_off) / 100) : (coupon.amount_off_cents ?? 0);
  return Math.min(cents, Math.max(0, off));
}

export function normaliseCouponCode(code: string): string {
  return code.trim().toUpperCase();
}

export type CouponCheck =
  | { ok: true; coupon: Coupon; priceCents: number; discountCents: number; totalCents: number }
  | { ok: false; message: string };

function usedUp(coupon: Pick<Coupon, "max_redemptions" | "times_redeemed" | "reserved">): boolean {
  return coupon.max_redemptions !== null && Number(coupon.times_redeemed) + Number(coupon.reserved) >= coupon.max_redemptions;
}

/**
 * Whether `code` can be used for `plan` at `now`, and the total it gives. A check only: a payment
 * then takes a hold (reserveCoupon), which is what enforces max_redemptions.
 */
export async function checkCoupon(db: Database, code: string, plan: Plan, now: Date): Promise<CouponCheck> {
  const find = () => db.selectFrom("coupons").selectAll().where("code", "=", normaliseCouponCode(code)).executeTakeFirst();
  let coupon = await find();
  if (coupon && usedUp(coupon) && Number(coupon.reserved) > 0) {
    // Holds of abandoned payments count until they expire: give those back before saying no.
    await releaseExpiredHolds(db, Number(coupon.id), now);
    coupon = await find();
  }
  const invalid = { ok: false, message: COUPON_MESSAGES.invalid } as const;
  if (!coupon) return invalid;
  if (coupon.expires_at && coupon.expires_at <= now.toISOString()) return invalid;
  if (usedUp(coupon)) return invalid;
  if (coupon.plan_ids !== null && !coupon.plan_ids.split(",").map(Number).includes(Number(plan.id))) return invalid;
  const priceCents = plan.discounted_price_cents;
  const discountCents = couponDiscountCents(coupon, priceCents);
  return { ok: true, coupon, priceCents, discountCents, totalCents: priceCents - discountCents };
}

/*
 * Holds (docs/decisions/008). A payment with a coupon takes a hold BEFORE it charges: one
 * conditional UPDATE (times_redeemed + reserved < max_redemptions) on SQLite and PostgreSQL alike,
 * so a parallel burst never holds more than the limit. The hold is keyed by the payment (its
 * idempotency key, or its crypto invoice): a retry of the same payment finds its hold and takes no
 * second one. Paid: the hold becomes a redemption (redeemCouponHold, in the transaction that records
 * the payment). Declined, expired or abandoned: it is released (releaseCouponHold), or given back by
 * itself once past expires_at.
 */

/** Gives back the expired holds of one coupon (each row once: the state change is conditional). */
export async function releaseExpiredHolds(db: Database, couponId: number, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const released = await trx
      .updateTable("coupon_reservations")
      .set({ state: "released", updated_at: now.toISOString() })
      .where("coupon_id", "=", couponId)
      .where("state", "=", "held")
      .where("expires_at", "<=", now.toISOString())
      .returning("id")
      .execute();
    if (released.length === 0) return;
    await trx
      .updateTable("coupons")
      .set((eb) => ({ reserved: eb("reserved", "-", released.length) }))
      .where("id", "=", couponId)
      .execute();
  });
}

/**
 * Holds one redemption of `couponId` for the payment `key` until `expiresAt`. True when held (now,
 * or already by an earlier try of the same payment); false when the coupon is used up.
 */
export async function reserveCoupon(
  db: Database,
  hold: { couponId: number; key: string; userId: number | null; now: Date; expiresAt: Date },
): Promise<boolean> {
  await releaseExpiredHolds(db, hold.couponId, hold.now);
  const attempt = () =>
    db.transaction().execute(async (trx) => {
      const at = hold.now.toISOString();
      const existing = await trx
        .selectFrom("coupon_reservations")
        .selectAll()
        .where("reservation_key", "=", hold.key)
        .executeTakeFirst();
      if (existing && existing.state !== "released" && Number(existing.coupon_id) === hold.couponId) {
        if (existing.state === "held") {
          await trx
            .updateTable("coupon_reservations")
            .set({ expires_at: hold.expiresAt.toISOString(), updated_at: at })
            .where("id", "=", existing.id)
            .execute();
        }
        return true;
      }
      if (existing && existing.state === "held") {
        // The same key for another coupon (not expected: a key is one request): that hold goes first.
        await releaseHoldIn(trx, existing.reservation_key, hold.now);
      }
      const taken = await trx
        .updateTable("coupons")
        .set((eb) => ({ reserved: eb("reserved", "+", 1) }))
        .where("id", "=", hold.couponId)
        .where((eb) =>
          eb.or([
            eb("max_redemptions", "is", null),
            eb(eb("times_redeemed", "+", eb.ref("reserved")), "<", eb.ref("max_redemptions")),
          ]),
        )
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 0) return false;
      if (existing) {
        await trx
          .updateTable("coupon_reservations")
          .set({ coupon_id: hold.couponId, state: "held", expires_at: hold.expiresAt.toISOString(), updated_at: at })
          .where("id", "=", existing.id)
          .execute();
      } else {
        await trx
          .insertInto("coupon_reservations")
          .values({
            coupon_id: hold.couponId,
            reservation_key: hold.key,
            user_id: hold.userId,
            state: "held",
            expires_at: hold.expiresAt.toISOString(),
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
      return true;
    });
  try {
    return await attempt();
  } catch (error) {
    // Two tries of one payment at the same moment (PostgreSQL): the other inserted the hold, and this
    // transaction, its increment included, was rolled back. Run again: it finds that hold.
    if (!isUniqueViolation(error)) throw error;
    return attempt();
  }
}

async function releaseHoldIn(db: Database, key: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable("coupon_reservations")
    .set({ state: "released", updated_at: now.toISOString() })
    .where("reservation_key", "=", key)
    .where("state", "=", "held")
    .returning("coupon_id")
    .executeTakeFirst();
  if (!row) return false;
  await db
    .updateTable("coupons")
    .set((eb) => ({ reserved: eb("reserved", "-", 1) }))
    .where("id", "=", row.coupon_id)
    .where("reserved", ">", 0)
    .execute();
  return true;
}

/** Gives a payment's hold back (declined, expired, abandoned). Nothing when it was paid or already given back. */
export async function releaseCouponHold(db: Database, key: string | null | undefined, now: Date): Promise<boolean> {
  if (!key) return false;
  return db.transaction().execute((trx) => releaseHoldIn(trx, key, now));
}

/**
 * Counts a paid payment's redemption, once per key: its hold becomes the redemption. A payment whose
 * hold was already given back (it expired, then the money came late) or that never had one (paid
 * before holds existed) counts too: it was paid with the discount. Call it inside the transaction
 * that records the payment.
 */
export async function redeemCouponHold(
  db: Database,
  redemption: { couponId: number; key: string; userId: number; now: Date },
): Promise<void> {
  const at = redemption.now.toISOString();
  const wasHeld = await db
    .updateTable("coupon_reservations")
    .set({ state: "redeemed", updated_at: at })
    .where("reservation_key", "=", redemption.key)
    .where("state", "=", "held")
    .returning("coupon_id")
    .executeTakeFirst();
  if (wasHeld) {
    await db
      .updateTable("coupons")
      .set((eb) => ({ reserved: eb("reserved", "-", 1), times_redeemed: eb("times_redeemed", "+", 1) }))
      .where("id", "=", wasHeld.coupon_id)
      .execute();
    return;
  }
  const wasReleased = await db
    .updateTable("coupon_reservations")
    .set({ state: "redeemed", updated_at: at })
    .where("reservation_key", "=", redemption.key)
    .where("state", "=", "released")
    .returning("coupon_id")
    .executeTakeFirst();
  let couponId = wasReleased ? Number(wasReleased.coupon_id) : null;
  if (!wasReleased) {
    const inserted = await db
      .insertInto("coupon_reservations")
      .values({
        coupon_id: redemption.couponId,
        reservation_key: redemption.key,
        user_id: redemption.userId,
        state: "redeemed",
        expires_at: at,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) => oc.column("reservation_key").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (inserted) couponId = redemption.couponId;
  }
  if (couponId === null) return; // already redeemed
  await db
    .updateTable("coupons")
    .set((eb) => ({ times_redeemed: eb("times_redeemed", "+", 1) }))
    .where("id", "=", couponId)
    .execute();
}

/** Seeds WELCOME10 when it is missing (sandbox cards). */
export async function seedWelcomeCoupon(db: Database, now: Date): Promise<void> {
  await db
    .insertInto("coupons")
    .values({
      code: WELCOME_COUPON.code,
      percent_off: WELCOME_COUPON.percent_off,
      amount_off_cents: null,
      plan_ids: null,
      expires_at: null,
      max_redemptions: null,
      stripe_promotion_code_id: null,
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.column("code").doNothing())
    .execute();
}

export const CouponQuoteSchema = z
  .strictObject({
    code: z.string(),
    plan_id: z.int(),
    price: z.number().meta({ description: "The plan's discounted price, USD." }),
    price_cents: z.int().meta({ description: "The same in cents." }),
    discount_amount: z.number().meta({ description: "What the coupon takes off, USD." }),
    discount_amount_cents: z.int().meta({ description: "The same in cents." }),
    total: z.number().meta({ description: "What the first payment costs with the coupon, USD." }),
    total_cents: z.int().meta({ description: "The same in cents." }),
  })
  .meta({ id: "CouponQuote" });

export function couponQuote(check: Extract<CouponCheck, { ok: true }>, planId: number): z.infer<typeof CouponQuoteSchema> {
  return {
    code: check.coupon.code,
    plan_id: planId,
    price: dollars(check.priceCents),
    price_cents: check.priceCents,
    discount_amount: dollars(check.discountCents),
    discount_amount_cents: check.discountCents,
    total: dollars(check.totalCents),
    total_cents: check.totalCents,
  };
}
