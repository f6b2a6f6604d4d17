import { describe, expect, it } from "vitest";
import {
  SECURITY_EVENTS_PAGE_SIZE,
  deleteExpiredSecurityEvents,
  listSecurityEvents,
  recordSecurityEvent,
} from "../../api/identity/security-events";
import { shortenAddress } from "../../api/platform/trust-proxy";
import { databases, useApi } from "./harness";

describe("the security log keeps addresses only shortened", () => {
  it("IPv4 to its /24, IPv6 to its /48, IPv4-mapped IPv6 as IPv4; anything else is null", () => {
    expect(shortenAddress("203.0.113.77")).toBe("203.0.113.0/24");
    expect(shortenAddress("::ffff:198.51.100.9")).toBe("198.51.100.0/24");
    expect(shortenAddress("2001:db8:85a3:8d3:1319:8a2e:370:7348")).toBe("2001:db8:85a3::/48");
    expect(shortenAddress("2001:0db8:0000:0042::1")).toBe("2001:db8::/48");
    expect(shortenAddress("[2a00:1450:4001:80b::200e]")).toBe("2a00:1450:4001::/48");
    expect(shortenAddress("fe80::1%eth0")).toBe("fe80::/48");
    expect(shortenAddress("not an address")).toBeNull();
    expect(shortenAddress(undefined)).toBeNull();
  });
});

describe.each(databases())("security events ($name)", (kind) => {
  const t = useApi(kind);

  async function newUser(): Promise<number> {
    const now = new Date().toISOString();
    const email = `events-${Math.random().toString(36).slice(2)}@example.com`;
    const row = await t.db
      .insertInto("users")
      .values({ email, name: null, password_hash: null, email_verified_at: now, agreement_at: now, newsletter_at: null, stripe_customer_id: null, created_at: now, updated_at: now, deleted_at: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it("stores the network, not the address, and lists newest first, 20 a page", async () => {
    const userId = await newUser();
    const start = Date.now() - 60_000;
    for (let i = 0; i < SECURITY_EVENTS_PAGE_SIZE + 3; i++) {
      await recordSecurityEvent(t.db, { userId, kind: i % 2 ? "signed_in" : "sign_in_failed", ip: "203.0.113.77", userAgent: "UA", at: new Date(start + i * 1000) });
    }
    const rows = await t.db.selectFrom("security_events").selectAll().where("user_id", "=", userId).execute();
    expect(rows.every((row) => row.network === "203.0.113.0/24")).toBe(true);
    expect(JSON.stringify(rows)).not.toContain("203.0.113.77");

    const first = await listSecurityEvents(t.db, userId, 1);
    expect(first.events).toHaveLength(SECURITY_EVENTS_PAGE_SIZE);
    expect(first.hasMore).toBe(true);
    expect(first.events[0]!.created_at).toBe(new Date(start + (SECURITY_EVENTS_PAGE_SIZE + 2) * 1000).toISOString());
    expect(first.events[0]!.label).toBe("Sign-in failed");
    const second = await listSecurityEvents(t.db, userId, 2);
    expect(second.events).toHaveLength(3);
    expect(second.hasMore).toBe(false);
  });

  it("deletes events older than 90 days and keeps the rest", async () => {
    const userId = await newUser();
    const now = new Date();
    await recordSecurityEvent(t.db, { userId, kind: "signed_in", at: new Date(now.getTime() - 91 * 86_400_000) });
    await recordSecurityEvent(t.db, { userId, kind: "password_changed", at: new Date(now.getTime() - 89 * 86_400_000) });
    expect(await deleteExpiredSecurityEvents(t.db, now)).toBeGreaterThanOrEqual(1);
    const left = await listSecurityEvents(t.db, userId);
    expect(left.events.map((event) => event.kind)).toEqual(["password_changed"]);
  });
});
