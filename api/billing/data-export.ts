import { z } from "zod";
import type { Database } from "../platform/db";
import { DomainError } from "../platform/errors";
import { LANGUAGES, isLanguage, text } from "../platform/i18n";
import type { RateLimiter } from "../platform/rate-limit";
import { providerLabel } from "../identity/account-links";
import { deviceName } from "../identity/devices";
import { SecurityEventSchema, allSecurityEvents } from "../identity/security-events";

/*
 * 'Download my data' (issue 22, docs/decisions/036): a copy of what the account holds, as the
 * customer sees it. Never in it: the password hash, token or code hashes, two-factor secrets, provider
 * subjects, gateway ids (Stripe customer, subscription, payment method and invoice ids, BitPay ids)
 * or card numbers beyond brand and last four.
 */

export const EXPORT_MAX_PER_HOUR = 5;
const EXPORT_WINDOW_SECONDS = 3600;

export const EXPORT_MESSAGES = {
  tooMany: (minutes: number) =>
    `You can download your data ${EXPORT_MAX_PER_HOUR} times an hour. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
} as const;

const dateTime = (description?: string) => z.string().meta({ format: "date-time", ...(description ? { description } : {}) });

export const DataExportSchema = z
  .strictObject({
    exported_at: dateTime("When this copy was made (ISO 8601)."),
    account: z.strictObject({
      email: z.string(),
      name: z.string().nullable(),
      created_at: dateTime(),
      verified: z.boolean().meta({ description: "Whether the email address was confirmed." }),
      email_verified_at: dateTime().nullable(),
      has_password: z.boolean(),
      newsletter: z.boolean().meta({ description: "'Send me news and offers by email'." }),
      sign_in_alerts: z.boolean(),
      language: z.enum(LANGUAGES).nullable().meta({ description: "The account's language: its emails and invoices are written in it (null: none chosen yet, English)." }),
    }),
    linked_accounts: z.array(
      z.strictObject({
        provider: z.enum(["Google", "Apple"]),
        email: z.string(),
        linked_at: dateTime(),
      }),
    ),
    subscriptions: z.array(
      z.strictObject({
        id: z.int(),
        plan_id: z.int(),
        title: z.string(),
        paid_by: z.string().meta({ description: "card ('stripe') or crypto ('bitpay')." }),
        status: z.string(),
        billing_type: z.string(),
        start_date: dateTime(),
        expiry_date: dateTime(),
        amount_cents: z.int().nullable(),
        auto_renewal: z.boolean(),
        coupon_code: z.string().nullable(),
        created_at: dateTime(),
      }),
    ),
    payments: z.array(
      z.strictObject({
        id: z.int(),
        plan_id: z.int(),
        subscription_id: z.int().nullable(),
        amount_cents: z.int(),
        currency: z.string(),
        status: z.string(),
        method: z.string().meta({ description: "The gateway ('stripe', 'bitpay') or wallet used." }),
        coupon_code: z.string().nullable(),
        failure_message: z.string().nullable(),
        created_at: dateTime(),
      }),
    ),
    invoices: z.array(
      z.strictObject({
        number: z.string(),
        payment_id: z.int(),
        amount_cents: z.int(),
        currency: z.string(),
        status: z.string(),
        created_at: dateTime(),
        billed_to: z
          .strictObject({ name: z.string(), address: z.string().nullable(), country: z.string().nullable(), vat_number: z.string().nullable() })
          .nullable()
          .meta({ description: "The billing details the invoice was made out to (a copy kept with it); null: made out to the account's email." }),
        credit_note: z.string().nullable().meta({ description: "The number of the refund's credit note, if any." }),
      }),
    ),
    billing_details: z
      .strictObject({
        country: z.string(),
        name: z.string(),
        address: z.string().nullable(),
        vat_number: z.string().nullable(),
        vat_number_status: z.string().nullable(),
        updated_at: dateTime(),
      })
      .nullable()
      .meta({ description: "The billing details invoices are made out to; null: none saved." }),
    cards: z.array(
      z.strictObject({
        brand: z.string(),
        last4: z.string(),
        default: z.boolean(),
        added_at: dateTime(),
      }),
    ),
    devices: z.array(
      z.strictObject({
        name: z.string().meta({ description: "The device as Connected Devices names it ('Firefox 133 on Windows 11')." }),
        platform: z.string(),
        os: z.string().nullable(),
        os_version: z.string().nullable(),
        brand: z.string().nullable(),
        model: z.string().nullable(),
        user_agent: z.string().nullable(),
        first_seen_at: dateTime(),
        last_sign_in_at: dateTime(),
      }),
    ),
    security_events: z.array(SecurityEventSchema),
    wireguard_configurations: z
      .array(
        z.strictObject({
          name: z.string(),
          server: z.string().meta({ description: "The VPN server's host name it was made for." }),
          public_key: z.string().meta({ description: "The device's WireGuard public key (the private key was never sent to us)." }),
          ipv4: z.string(),
          ipv6: z.string(),
          created_at: dateTime(),
          revoked_at: dateTime().nullable(),
          last_handshake_at: dateTime().nullable(),
        }),
      )
      .meta({ description: "Manual setup's WireGuard configurations, revoked ones too." }),
    service_credentials: z
      .strictObject({ username: z.string(), created_at: dateTime("When the current password was made.") })
      .nullable()
      .meta({ description: "The OpenVPN/IKEv2 username (never the password or its hash); null: none made." }),
  })
  .meta({ id: "DataExport" });

export type DataExport = z.infer<typeof DataExportSchema>;

/** Takes one of the account's 5 exports an hour, or throws 429 with the minutes to wait. */
export async function reserveExport(limiter: RateLimiter, userId: number): Promise<void> {
  const limit: [string, number] = [`data-export:user:${userId}`, EXPORT_MAX_PER_HOUR];
  if (await limiter.reserve(...limit, EXPORT_WINDOW_SECONDS)) return;
  const seconds = (await limiter.blockedFor([limit])) ?? 60;
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  throw new DomainError("rate_limited", EXPORT_MESSAGES.tooMany(minutes), {
    headers: { "Retry-After": String(seconds) },
    text: text("messages:dataExport.tooMany", { max: EXPORT_MAX_PER_HOUR, count: minutes }),
  });
}

const flag = (value: number | string | null | undefined) => Number(value) === 1;

/** Everything the export holds, read together. */
export async function exportAccountData(db: Database, userId: number, now: Date): Promise<DataExport> {
  const [user, links, subscriptions, transactions, invoices, cards, devices, events, configurations, credentials, details] = await Promise.all([
    db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow(),
    db.selectFrom("account_links").select(["link_type", "email", "created_at"]).where("user_id", "=", userId).orderBy("id").execute(),
    db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).orderBy("id").execute(),
    db.selectFrom("transactions").selectAll().where("user_id", "=", userId).orderBy("id").execute(),
    db
      .selectFrom("invoices")
      .leftJoin("credit_notes", "credit_notes.invoice_id", "invoices.id")
      .selectAll("invoices")
      .select("credit_notes.number as credit_note_number")
      .where("invoices.user_id", "=", userId)
      .orderBy("invoices.id")
      .execute(),
    db
      .selectFrom("payment_methods")
      .select(["card_brand", "card_last4", "is_default", "created_at"])
      .where("user_id", "=", userId)
      .orderBy("id")
      .execute(),
    db.selectFrom("devices").selectAll().where("user_id", "=", userId).orderBy("id").execute(),
    allSecurityEvents(db, userId),
    db
      .selectFrom("vpn_configurations")
      .select(["name", "server_hostname", "public_key", "ipv4", "ipv6", "created_at", "revoked_at", "last_handshake_at"])
      .where("user_id", "=", userId)
      .orderBy("id")
      .execute(),
    db.selectFrom("vpn_credentials").select(["username", "created_at"]).where("user_id", "=", userId).executeTakeFirst(),
    db.selectFrom("billing_details").selectAll().where("user_id", "=", userId).executeTakeFirst(),
  ]);
  return {
    exported_at: now.toISOString(),
    account: {
      email: user.email,
      name: user.name,
      created_at: user.created_at,
      verified: user.email_verified_at !== null,
      email_verified_at: user.email_verified_at,
      has_password: Boolean(user.password_hash),
      newsletter: flag(user.newsletter),
      sign_in_alerts: flag(user.sign_in_alerts),
      language: isLanguage(user.language) ? user.language : null,
    },
    linked_accounts: links.map((link) => ({
      provider: providerLabel(link.link_type) as "Google" | "Apple",
      email: link.email,
      linked_at: link.created_at,
    })),
    subscriptions: subscriptions.map((s) => ({
      id: Number(s.id),
      plan_id: Number(s.plan_id),
      title: s.title,
      paid_by: s.subscription_by,
      status: s.subs_status,
      billing_type: s.billing_type,
      start_date: s.sub_start_date,
      expiry_date: s.sub_exp_date,
      amount_cents: s.amount_cents === null ? null : Number(s.amount_cents),
      auto_renewal: s.billing_type === "recurring" && !flag(s.cancel_at_period_end),
      coupon_code: s.coupon_code,
      created_at: s.created_at,
    })),
    payments: transactions.map((t) => ({
      id: Number(t.id),
      plan_id: Number(t.plan_id),
      subscription_id: t.subscription_id === null ? null : Number(t.subscription_id),
      amount_cents: Number(t.amount_cents),
      currency: t.currency,
      status: t.status,
      method: t.wallet_payment_type ?? t.payment_gateway,
      coupon_code: t.coupon_code,
      failure_message: t.failure_message,
      created_at: t.created_at,
    })),
    invoices: invoices.map((i) => ({
      number: i.number,
      payment_id: Number(i.transaction_id),
      amount_cents: Number(i.amount_cents),
      currency: i.currency,
      status: i.status,
      created_at: i.created_at,
      billed_to: i.buyer_name ? { name: i.buyer_name, address: i.buyer_address, country: i.buyer_country, vat_number: i.buyer_vat_number } : null,
      credit_note: i.credit_note_number ?? null,
    })),
    billing_details: details
      ? {
          country: details.country,
          name: details.name,
          address: details.address,
          vat_number: details.vat_number,
          vat_number_status: details.vat_number_status,
          updated_at: details.updated_at,
        }
      : null,
    cards: cards.map((c) => ({ brand: c.card_brand, last4: c.card_last4, default: flag(c.is_default), added_at: c.created_at })),
    devices: devices.map((d) => ({
      name: deviceName(d),
      platform: d.platform,
      os: d.device_os,
      os_version: d.device_os_version,
      brand: d.device_brand,
      model: d.device_model,
      user_agent: d.user_agent,
      first_seen_at: d.created_at,
      last_sign_in_at: d.last_login_at,
    })),
    security_events: events,
    wireguard_configurations: configurations.map((c) => ({
      name: c.name,
      server: c.server_hostname,
      public_key: c.public_key,
      ipv4: c.ipv4,
      ipv6: c.ipv6,
      created_at: c.created_at,
      revoked_at: c.revoked_at,
      last_handshake_at: c.last_handshake_at,
    })),
    service_credentials: credentials ? { username: credentials.username, created_at: credentials.created_at } : null,
  };
}
