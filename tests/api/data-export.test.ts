import { describe, expect, it } from "vitest";
import { recordSecurityEvent } from "../../api/identity/security-events";
import { databases, useApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// 'Download my data' (issue 22, docs/decisions/036): what the copy holds, what it never holds, its limit.

describe.each(databases())("data export ($name)", (kind) => {
  const t = useApi(kind);

  it("holds the account, links, subscriptions, payments, invoices, cards, devices and events, and no secrets", async () => {
    const email = `export-${Date.now()}@example.com`;
    const { userId, token } = await customer(t, email);
    // Billing details (issue 35): in the export, and copied onto the invoice made next.
    const details = await t.request("PUT", "/api/account/billing-details", { token, json: { country: "AT", name: "Anna Öberg", address: "Ring 1\n1010 Wien" } });
    expect(details.status, details.text).toBe(200);
    const paid = await t.post("/api/payments/card", {
      token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    await t.db
      .insertInto("account_links")
      .values({ user_id: userId, link_type: "APPLE", subject: "apple-secret-subject-123", email: "relay@privaterelay.appleid.com", created_at: new Date().toISOString() })
      .execute();
    await recordSecurityEvent(t.db, { userId, kind: "password_changed", ip: "203.0.113.9", userAgent: "Test UA" });
    // Manual setup (issue 34): a WireGuard configuration and the service credentials.
    const publicKey = Buffer.alloc(32, 7).toString("base64");
    const made = await t.post("/api/vpn/configurations", { token, json: { name: "Home router", server: "fastest", public_key: publicKey } });
    expect(made.status, made.text).toBe(200);
    const credentials = await t.post("/api/vpn/credentials", { token, json: {} });
    expect(credentials.status, credentials.text).toBe(200);

    const res = await t.get("/api/account/export", { token });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data.account).toMatchObject({ email, verified: true, has_password: true });
    expect(typeof data.account.created_at).toBe("string");
    expect(typeof data.account.newsletter).toBe("boolean");
    expect(data.linked_accounts).toEqual([
      { provider: "Apple", email: "relay@privaterelay.appleid.com", linked_at: expect.any(String) },
    ]);
    expect(data.subscriptions).toHaveLength(1);
    expect(data.subscriptions[0]).toMatchObject({ plan_id: 1, paid_by: "stripe" });
    expect(data.payments).toHaveLength(1);
    expect(data.payments[0]).toMatchObject({ plan_id: 1, status: "paid" });
    expect(data.invoices.length).toBeGreaterThanOrEqual(1);
    expect(data.invoices[0]).toMatchObject({
      number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
      billed_to: { name: "Anna Öberg", address: "Ring 1\n1010 Wien", country: "AT", vat_number: null },
      credit_note: null,
    });
    expect(data.billing_details).toEqual({
      country: "AT",
      name: "Anna Öberg",
      address: "Ring 1\n1010 Wien",
      vat_number: null,
      vat_number_status: null,
      updated_at: expect.any(String),
    });
    expect(data.cards).toEqual([{ brand: expect.any(String), last4: "4242", default: true, added_at: expect.any(String) }]);
    expect(data.devices.length).toBeGreaterThanOrEqual(1);
    // Each device by the name Connected Devices gives it (issue 33).
    const listed = (await t.get("/api/devices", { token })).body.data[0] as Array<{ name: string }>;
    expect(data.devices.map((d: { name: string }) => d.name).sort()).toEqual(listed.map((d) => d.name).sort());
    const kinds = data.security_events.map((event: { kind: string }) => event.kind);
    expect(kinds).toContain("password_changed");
    // This export itself is in the log (recorded before the copy is read).
    expect(kinds).toContain("data_exported");
    expect(JSON.stringify(data.security_events)).not.toContain("203.0.113.9");
    expect(data.wireguard_configurations).toEqual([
      expect.objectContaining({ name: "Home router", public_key: publicKey, ipv4: made.body.data.configuration.ipv4, revoked_at: null }),
    ]);
    expect(data.service_credentials).toEqual({ username: credentials.body.data.username, created_at: expect.any(String) });

    // No secrets: hashes, subjects, gateway ids, full card numbers.
    const user = await t.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    const tokens = await t.db.selectFrom("tokens").select("token_hash").where("user_id", "=", userId).execute();
    const card = await t.db.selectFrom("payment_methods").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    const text = res.text;
    const vpnPassword = await t.db.selectFrom("vpn_credentials").select("password_hash").where("user_id", "=", userId).executeTakeFirstOrThrow();
    for (const secret of [
      vpnPassword.password_hash,
      credentials.body.data.password,
      user.password_hash!,
      user.stripe_customer_id!,
      ...tokens.map((row) => row.token_hash),
      card.payment_method_id,
      sub.stripe_sub_id,
      "apple-secret-subject-123",
      "4242424242424242",
      token,
    ].filter(Boolean) as string[]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/password_hash|token_hash|secret|cus_|pm_|sub_[A-Za-z0-9]{8}/);
  });

  it("allows 5 an hour per account, also in a parallel burst, with a clear message", async () => {
    const email = `export-limit-${Date.now()}@example.com`;
    const { userId, token } = await customer(t, email);
    const burst = await Promise.all(Array.from({ length: 7 }, () => t.get("/api/account/export", { token })));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = burst.filter((r) => r.status === 429);
    expect(refused).toHaveLength(2);
    expect(refused[0]!.body.message).toMatch(/^You can download your data 5 times an hour\. Please try again in \d+ minutes?\.$/);
    expect(refused[0]!.headers.get("retry-after")).toMatch(/^\d+$/);
    const events = await t.db.selectFrom("security_events").select("kind").where("user_id", "=", userId).where("kind", "=", "data_exported").execute();
    expect(events).toHaveLength(5);
    expect((await t.get("/api/account/export")).status).toBe(401);
  });
});
