import { createHash, createPrivateKey } from "node:crypto";
import { isIP } from "node:net";
import { z } from "zod";
import { LOG_LEVELS, type LogLevel } from "./logger";
import { type VpnServerFileEntry, readVpnServersFile } from "./vpn-servers-file";
import { DEFAULT_TAX_RATES, type TaxRates, readTaxRatesFile } from "./tax-rates";

/**
 * How an integration runs: with its credentials ("live"), as its stand-in ("sandbox": only in sandbox
 * mode, SANDBOX=true), or not at all ("off": outside sandbox mode without credentials). Outside
 * sandbox mode no stand-in exists (docs/decisions/019).
 */
export type IntegrationMode = "live" | "sandbox" | "off";

/** The Stripe API version the product is written against (stripe@23's own); STRIPE_API_VERSION overrides it. */
export const STRIPE_API_VERSION = "2026-10-28.endive";

/** How far the API trusts X-Forwarded-For beyond loopback (loopback is always trusted). */
export type TrustProxySetting =
  | { kind: "none" }
  | { kind: "all" }
  | { kind: "hops"; hops: number }
  | { kind: "list"; entries: string[] };

export type DatabaseTarget =
  | { kind: "sqlite"; path: string }
  | { kind: "postgres"; url: string };

export interface ApiConfig {
  /** The DATABASE_URL as given (or the default). Pass it to createDatabase() with postgresUser. */
  databaseUrl: string;
  /**
   * The user for a postgres:// URL that names none: PGUSER, else USER (else the OS account, as psql does;
   * api/platform/db withDefaultUser).
   */
  postgresUser?: string;
  database: DatabaseTarget;
  /** Public origin of the portal, without a trailing slash (used for links in emails). */
  publicUrl: string;
  tokenTtlDays: number;
  /** Failed password sign-ins (api/platform/rate-limit.ts LoginThrottle), real time. */
  login: {
    maxFailuresPerEmailPerIp: number;
    maxFailuresPerIp: number;
    maxFailuresPerEmail: number;
    /**
     * Wrong second factors (two-factor sign-in) per account from anywhere, whatever the challenge
     * (TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT), in the same window.
     */
    maxSecondFactorFailuresPerAccount: number;
    failureWindowSeconds: number;
  };
  downloads: { windows: string; mac: string };
  /** Hourly caps on emailed-code requests (sign-up, sign-in, reset, set-password link), real time. */
  codes: {
    maxPerEmailPerHour: number;
    maxPerIpPerHour: number;
  };
  /** The From header of every email (MAIL_FROM). */
  mailFrom: string;
  trustProxy: TrustProxySetting;
  /** Raw integration credentials; read now, used by later issues. Never log them. */
  credentials: {
    smtpUrl?: string;
    stripeSecretKey?: string;
    bitpayApiToken?: string;
    googleClientId?: string;
    appleClientId?: string;
  };
  /**
   * Google and Apple sign-in: where each provider's ID tokens come from (issuer, for discovery and
   * the `iss` check) and our client at each (the `aud` of its ID tokens). Live when the client id
   * is set, else the in-process OpenID sandbox at {PUBLIC_URL}/dev/oidc/{google,apple} with its
   * published test clients. GOOGLE_ISSUER / APPLE_ISSUER are honoured in both modes (tests).
   */
  identity: {
    /** null when the provider is off (outside sandbox mode without its credentials). */
    google: GoogleIdentityConfig | null;
    apple: AppleIdentityConfig | null;
  };
  /**
   * Two-factor authentication (docs/decisions/017): the AES-256-GCM key that encrypts TOTP secrets
   * (TWO_FACTOR_ENCRYPTION_KEY, 32 bytes as 64 hex digits or base64). Without it a fixed development
   * key is used (`developmentKey: true`), in sandbox mode only.
   */
  twoFactor: {
    encryptionKey: Buffer;
    developmentKey: boolean;
  };
  /** Redeeming desktop hand-off codes: attempts per client address per window (real time). */
  desktopCodes: {
    maxPerIp: number;
    windowSeconds: number;
  };
  /**
   * Coupon tries (POST /api/coupons/apply, security review issue 17): per client address and per
   * signed-in account per window (real time); a try that finds a usable coupon is given back.
   */
  coupons: {
    maxPerIp: number;
    maxPerAccount: number;
    windowSeconds: number;
  };
  /** Crypto invoices opened (each emails BitPay's buyer): per client address and per buyer email per hour. */
  cryptoInvoices: {
    maxPerIp: number;
    maxPerEmail: number;
    windowSeconds: number;
  };
  /**
   * The contact form of /help (POST /api/support/messages): where messages go (SUPPORT_EMAIL; in sandbox
   * mode without it SANDBOX_SUPPORT_EMAIL; null = the form is off, never a stand-in address outside sandbox
   * mode), and how many a client address and a sender's address may send per window (real time).
   */
  support: {
    email: string | null;
    maxPerEmail: number;
    maxPerIp: number;
    windowSeconds: number;
  };
  integrations: {
    mail: IntegrationMode;
    cards: IntegrationMode;
    crypto: IntegrationMode;
    paypal: IntegrationMode;
    google: IntegrationMode;
    apple: IntegrationMode;
    /** Manual setup (WireGuard configurations, service credentials, the VPN servers' endpoints): live with VPN_NODE_TOKENS. */
    vpn: IntegrationMode;
  };
  /**
   * Manual setup and the VPN servers' endpoints (issue 34, docs/decisions/058). Live with VPN_NODE_TOKENS
   * (the servers' bearer tokens, several so that one can be rotated) and VPN_SERVERS_FILE (the server
   * list); in sandbox mode without them the sandbox's seeded servers and its published node token; off
   * outside sandbox mode without them (the servers' endpoints answer 404, the page says it is unavailable).
   */
  vpn: {
    /** VPN_NODE_TOKENS, each at least 32 characters. Never log them. */
    nodeTokens: string[];
    /** The servers of VPN_SERVERS_FILE, checked at boot; null without the file. */
    servers: VpnServerFileEntry[] | null;
    /** Wrong service-credential passwords per username per window (POST /api/vpn/authenticate), then 429. */
    authMaxFailuresPerUsername: number;
    authFailureWindowSeconds: number;
  };
  /**
   * Card payments through Stripe: live keys when STRIPE_SECRET_KEY is set, else the in-process
   * Stripe sandbox (api/sandboxes/stripe) with its own keys. The API version is pinned.
   */
  stripe: {
    secretKey?: string;
    publishableKey?: string;
    webhookSecret?: string;
    apiVersion: string;
    /** How long one request to Stripe may take before the SDK gives up (and retries it with the same key). */
    timeoutMs: number;
    /** Sandbox only, for fault tests (decision 012): STRIPE_SANDBOX_FAULTS, the sandbox's fault plan as JSON. */
    sandboxFaults?: string;
    /** Sandbox only: when the Stripe sandbox retries a failed renewal, in days after the first failure (default [1, 3, 5, 7]). */
    sandboxRetryDays?: number[];
  };
  /**
   * Crypto invoices through BitPay's POS facade: live when BITPAY_API_TOKEN is set (BITPAY_BASE_URL,
   * BitPay's test host by default), else the in-process crypto sandbox. Notifications must carry
   * BITPAY_NOTIFICATION_SECRET (required live).
   */
  bitpay: {
    token?: string;
    baseUrl: string;
    notificationSecret?: string;
  };
  /**
   * PayPal (issue 23): live with PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET and PAYPAL_WEBHOOK_ID (all three
   * or none) against PAYPAL_ENVIRONMENT's host (required outside sandbox mode, so that no deployment takes
   * PayPal's test money for real plans by default; in sandbox mode PayPal's sandbox by default); else the
   * in-process PayPal stand-in in sandbox mode, off outside it.
   */
  paypal: {
    clientId?: string;
    clientSecret?: string;
    webhookId?: string;
    environment: "production" | "sandbox";
  };
  /** Staff endpoints' bearer token (ADMIN_API_TOKEN); unset = those endpoints answer 404. Never log it. */
  adminApiToken?: string;
  /**
   * The seller every invoice and credit note names (docs/decisions/060): SELLER_NAME, SELLER_ADDRESS
   * (lines separated by newlines or a literal \n) and SELLER_VAT_ID. Required outside sandbox mode
   * (invoices are offered to every buyer); in sandbox mode SANDBOX_SELLER stands in.
   */
  seller: SellerConfig;
  /** VIES_CHECK=true: VAT numbers are checked with the EU's VIES service (outside sandbox mode only); else on their format alone. */
  viesCheck: boolean;
  /** The VAT rate of each EU country in basis points (tax-rates.ts; TAX_RATES_FILE overrides rows): PayPal's, crypto's and the Stripe stand-in's tax. */
  taxRates: TaxRates;
  /** How often the scheduled jobs (crypto renewal invoices, sandbox renewals) run, in ms. */
  jobsIntervalMs: number;
  /** How long a card subscription whose renewal failed stays Premium while it is retried (DUNNING_GRACE_DAYS, default 14). */
  dunningGraceDays: number;
  /**
   * Sandbox mode (SANDBOX=true), a deliberate setting: every integration without credentials is its
   * stand-in, and the demo account, the WELCOME10 coupon and the test clock exist. Outside it an
   * integration without credentials is off, and mail and cards are required.
   */
  sandbox: boolean;
  /** NODE_ENV === "production". */
  production: boolean;
  /** Port of the standalone API server (api/server.ts). */
  apiPort: number;
  /** The lowest level logged (LOG_LEVEL, default info). */
  logLevel: LogLevel;
}

export interface GoogleIdentityConfig {
  issuer: string;
  clientId: string;
  /** GOOGLE_CLIENT_SECRET (the portal's code exchange); the API itself only verifies ID tokens. */
  clientSecret: string | undefined;
}

export interface AppleIdentityConfig {
  issuer: string;
  /** The Services ID: the `aud` of the ID tokens. */
  clientId: string;
  teamId: string;
  keyId: string;
  /** PEM of the Sign in with Apple key (.p8), `\n` escapes turned into newlines; unset in sandbox. */
  privateKey?: string;
}

export const DEFAULT_GOOGLE_ISSUER = "https://accounts.google.com";
export const DEFAULT_APPLE_ISSUER = "https://appleid.apple.com";
export interface SellerConfig {
  name: string;
  addressLines: string[];
  vatId: string;
}

/** The seller on sandbox invoices: plainly not a real company. */
export const SANDBOX_SELLER: SellerConfig = {
  name: "VPN Sandbox Ltd",
  addressLines: ["1 Example Street", "10115 Berlin", "Germany"],
  vatId: "DE999999999",
};

/** SELLER_ADDRESS: lines separated by newlines or a literal "\n", blanks dropped. */
export function parseSellerAddress(value: string): string[] {
  return value
    .split(/\r?\n|\\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** The sandbox provider's published test clients. */
export const SANDBOX_GOOGLE_CLIENT = {
  clientId: "sandbox-google-client",
  clientSecret: "sandbox-google-secret",
} as const;
export const SANDBOX_APPLE_CLIENT = {
  clientId: "sandbox.apple.client",
  teamId: "SANDBOXTEAM",
  keyId: "SANDBOXKEY",
} as const;
/** Window of DESKTOP_CODE_MAX_PER_IP. */
export const DESKTOP_CODE_WINDOW_SECONDS = 600;

export const DEFAULT_DATABASE_URL = "./data/portal.sqlite";
export const DEFAULT_DOWNLOAD_WINDOWS_URL = "https://downloads.example.com/vpn/windows/VPN-Setup.exe";
export const DEFAULT_DOWNLOAD_MAC_URL = "https://downloads.example.com/vpn/macos/VPN.dmg";
export const DEFAULT_MAIL_FROM = "VPN <no-reply@localhost>";
/** Where the contact form's messages go in sandbox mode without SUPPORT_EMAIL (a reserved domain: nobody's inbox). */
export const SANDBOX_SUPPORT_EMAIL = "support@example.com";

/** Empty strings in the environment (e.g. `SMTP_URL=` in a .env file) count as "not set". */
const optionalString = z
  .string()
  .optional()
  .transform((v) => {
    const t = v?.trim();
    return t ? t : undefined;
  });

function integer(opts: { min: number; max: number; message: string }) {
  return optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= opts.min && Number(v) <= opts.max), {
      message: opts.message,
    })
    .transform((v) => (v === undefined ? undefined : Number(v)));
}

const positiveInteger = integer({ min: 1, max: Number.MAX_SAFE_INTEGER, message: "expected a positive integer" });
const port = (min: number) =>
  integer({ min, max: 65535, message: `expected a port number between ${min} and 65535` });

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const httpUrl = optionalString.refine((v) => v === undefined || isHttpUrl(v), {
  message: "expected an http:// or https:// URL",
});

export function parseDatabaseUrl(url: string): DatabaseTarget | null {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      return null;
    }
    return { kind: "postgres", url };
  }
  let path = url;
  if (/^file:/i.test(path)) {
    path = path.slice(5);
    // file:///abs/path -> /abs/path ; file://./rel -> ./rel ; file:./rel -> ./rel
    if (path.startsWith("//")) path = path.slice(2);
    const q = path.indexOf("?");
    if (q >= 0) path = path.slice(0, q);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return null; // some other URL scheme (mysql://, http://, ...)
  if (!path) return null;
  return { kind: "sqlite", path };
}

/** 32 bytes from 64 hex digits or base64 / base64url, else null. */
export function parseEncryptionKey(value: string): Buffer | null {
  const v = value.trim();
  if (/^[0-9a-f]{64}$/i.test(v)) return Buffer.from(v, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(v)) return null;
  const bytes = Buffer.from(v.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return bytes.length === 32 ? bytes : null;
}

/** Sandbox and development only (public, in the source): see the superRefine below. */
const DEVELOPMENT_TWO_FACTOR_KEY = createHash("sha256").update("vpn-portal development two-factor key").digest();

const NAMED_SUBNETS = new Set(["loopback", "linklocal", "uniquelocal"]);

export function parseTrustProxy(value: string | undefined): TrustProxySetting | null {
  const v = value?.trim() ?? "";
  if (v === "" || v.toLowerCase() === "false") return { kind: "none" };
  if (v.toLowerCase() === "true") return { kind: "all" };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return hops === 0 ? { kind: "none" } : { kind: "hops", hops };
  }
  const entries = v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (NAMED_SUBNETS.has(entry.toLowerCase())) continue;
    const [address, prefix, extra] = entry.split("/");
    if (extra !== undefined || !address) return null;
    const family = isIP(address);
    if (family === 0) return null;
    if (prefix !== undefined) {
      if (!/^\d+$/.test(prefix)) return null;
      const bits = Number(prefix);
      if (bits > (family === 4 ? 32 : 128)) return null;
    }
  }
  return entries.length ? { kind: "list", entries } : { kind: "none" };
}

/** An APPLE_PRIVATE_KEY value with its `\n` escapes turned into newlines. */
function unescapePem(value: string): string {
  return value.replace(/\\n/g, "\n");
}

function isPrivateKeyPem(value: string): boolean {
  try {
    createPrivateKey(unescapePem(value));
    return true;
  } catch {
    return false;
  }
}

const envSchema = z
  .object({
    DATABASE_URL: optionalString.refine((v) => v === undefined || parseDatabaseUrl(v) !== null, {
      message: "expected a SQLite file path (optionally prefixed with file:) or a postgres:// URL",
    }),
    PORT: port(1),
    PUBLIC_URL: httpUrl,
    TOKEN_TTL_DAYS: positiveInteger,
    LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: positiveInteger,
    LOGIN_MAX_FAILURES_PER_IP: positiveInteger,
    LOGIN_MAX_FAILURES_PER_EMAIL: positiveInteger,
    LOGIN_FAILURE_WINDOW_SECONDS: positiveInteger,
    TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT: positiveInteger,
    DOWNLOAD_WINDOWS_URL: httpUrl,
    DOWNLOAD_MAC_URL: httpUrl,
    TRUST_PROXY: optionalString.refine((v) => parseTrustProxy(v) !== null, {
      message:
        'expected empty, "true", "false", a number of hops, or comma-separated IP addresses/subnets (or loopback, linklocal, uniquelocal)',
    }),
    SMTP_URL: optionalString.refine(
      (v) => {
        if (v === undefined) return true;
        try {
          return ["smtp:", "smtps:"].includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { message: "expected an smtp:// or smtps:// URL" },
    ),
    MAIL_FROM: optionalString.refine((v) => v === undefined || (/^[^\r\n]*@[^\r\n]*$/.test(v) && v.length <= 320), {
      message: 'expected an address such as "VPN <no-reply@example.com>"',
    }),
    CODE_MAX_PER_EMAIL_PER_HOUR: positiveInteger,
    CODE_MAX_PER_IP_PER_HOUR: positiveInteger,
    STRIPE_SECRET_KEY: optionalString,
    STRIPE_PUBLISHABLE_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    STRIPE_API_VERSION: optionalString.refine((v) => v === undefined || /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(v), {
      message: "expected a Stripe API version such as 2026-10-28.endive",
    }),
    STRIPE_TIMEOUT_MS: positiveInteger,
    STRIPE_SANDBOX_FAULTS: optionalString.refine(
      (v) => {
        if (v === undefined) return true;
        // The shape only: the sandbox checks each fault when it is made at start (api/sandboxes/stripe/faults.ts).
        try {
          const plan: unknown = JSON.parse(v);
          return typeof plan === "object" && plan !== null && Array.isArray((plan as { faults?: unknown }).faults);
        } catch {
          return false;
        }
      },
      { message: 'expected the sandbox fault plan as JSON, e.g. {"faults":[{"path":"/v1/invoices/:id/pay","when":"after","kind":"delay"}]}' },
    ),
    BITPAY_API_TOKEN: optionalString,
    BITPAY_BASE_URL: httpUrl,
    BITPAY_NOTIFICATION_SECRET: optionalString.refine((v) => v === undefined || v.length >= 24, {
      message: "expected at least 24 random characters",
    }),
    PAYPAL_CLIENT_ID: optionalString,
    PAYPAL_CLIENT_SECRET: optionalString,
    PAYPAL_WEBHOOK_ID: optionalString,
    PAYPAL_ENVIRONMENT: optionalString.refine((v) => v === undefined || v === "production" || v === "sandbox", {
      message: 'expected "production" (api-m.paypal.com) or "sandbox" (api-m.sandbox.paypal.com)',
    }),
    SELLER_NAME: optionalString,
    SELLER_ADDRESS: optionalString,
    SELLER_VAT_ID: optionalString,
    VIES_CHECK: optionalString.refine((v) => v === undefined || ["true", "false"].includes(v.toLowerCase()), {
      message: 'expected "true" or "false"',
    }),
    ADMIN_API_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 32, {
      message: "expected at least 32 random characters",
    }),
    JOBS_INTERVAL_SECONDS: positiveInteger,
    DUNNING_GRACE_DAYS: integer({ min: 1, max: 60, message: "expected a number of days between 1 and 60" }),
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    GOOGLE_ISSUER: httpUrl,
    APPLE_CLIENT_ID: optionalString,
    APPLE_TEAM_ID: optionalString,
    APPLE_KEY_ID: optionalString,
    APPLE_PRIVATE_KEY: optionalString.refine((v) => v === undefined || isPrivateKeyPem(v), {
      message: "expected the PEM of the Sign in with Apple key (.p8), newlines as real newlines or \\n",
    }),
    APPLE_ISSUER: httpUrl,
    DESKTOP_CODE_MAX_PER_IP: positiveInteger,
    COUPON_MAX_ATTEMPTS_PER_IP: positiveInteger,
    COUPON_MAX_ATTEMPTS_PER_ACCOUNT: positiveInteger,
    COUPON_ATTEMPT_WINDOW_SECONDS: positiveInteger,
    CRYPTO_INVOICE_MAX_PER_IP_PER_HOUR: positiveInteger,
    CRYPTO_INVOICE_MAX_PER_EMAIL_PER_HOUR: positiveInteger,
    // A bare address (support@example.com): it is the To of every contact-form message.
    SUPPORT_EMAIL: optionalString.refine((v) => v === undefined || (v.length <= 254 && z.email().safeParse(v).success), {
      message: "expected an email address such as support@example.com",
    }),
    SUPPORT_MAX_PER_EMAIL_PER_HOUR: positiveInteger,
    SUPPORT_MAX_PER_IP_PER_HOUR: positiveInteger,
    VPN_NODE_TOKENS: optionalString.refine((v) => v === undefined || parseNodeTokens(v).every((token) => /^[\x21-\x7e]{32,}$/.test(token)), {
      message: "expected comma-separated tokens, each at least 32 random printable characters without spaces",
    }),
    // Read and checked here, at boot: a bad file stops the start with the other problems.
    TAX_RATES_FILE: optionalString.transform((path, ctx) => {
      if (path === undefined) return undefined;
      const read = readTaxRatesFile(path);
      if ("problem" in read) {
        ctx.addIssue({ code: "custom", message: read.problem });
        return z.NEVER;
      }
      return read.rates;
    }),
    VPN_SERVERS_FILE: optionalString.transform((path, ctx) => {
      if (path === undefined) return undefined;
      const read = readVpnServersFile(path);
      if ("problem" in read) {
        ctx.addIssue({ code: "custom", message: read.problem });
        return z.NEVER;
      }
      return read.servers;
    }),
    VPN_AUTH_MAX_FAILURES_PER_USERNAME: positiveInteger,
    VPN_AUTH_FAILURE_WINDOW_SECONDS: positiveInteger,
    TWO_FACTOR_ENCRYPTION_KEY: optionalString.refine((v) => v === undefined || parseEncryptionKey(v) !== null, {
      message: "expected 32 random bytes as 64 hex digits or base64 (e.g. openssl rand -base64 32)",
    }),
    API_PORT: port(0),
    LOG_LEVEL: optionalString.refine((v) => v === undefined || (LOG_LEVELS as readonly string[]).includes(v), {
      message: `expected one of ${LOG_LEVELS.join(", ")}`,
    }),
    SANDBOX: optionalString.refine((v) => v === undefined || SANDBOX_VALUES.has(v.toLowerCase()), {
      message: 'expected "true" (run every integration without credentials on its stand-in) or "false"',
    }),
    NODE_ENV: optionalString,
    // libpq's defaults for a postgres:// URL without a user name.
    PGUSER: optionalString,
    USER: optionalString,
  })
  .superRefine((e, ctx) => {
    const required = (name: keyof typeof e, message: string) => {
      if (!e[name]) ctx.addIssue({ code: "custom", path: [name], message });
    };
    // Outside sandbox mode there are no stand-ins: what the product cannot run without must be configured.
    if (!isSandbox(e.SANDBOX)) {
      const outside = "required outside sandbox mode (SANDBOX=true runs the product on stand-ins)";
      for (const name of ["SMTP_URL", "STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const) required(name, outside);
      // The development key is public (it is in the source): a real deployment brings its own.
      required("TWO_FACTOR_ENCRYPTION_KEY", outside);
      // Every buyer can download an invoice, and an invoice names its seller (VAT Directive art. 226).
      for (const name of ["SELLER_NAME", "SELLER_ADDRESS", "SELLER_VAT_ID"] as const) {
        required(name, "required outside sandbox mode: every invoice names the seller (legal name, address, VAT number)");
      }
    }
    // Half-configured integrations are refused in every mode: a credential never goes unused silently.
    if (e.STRIPE_SECRET_KEY) {
      for (const name of ["STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const) required(name, "required when STRIPE_SECRET_KEY is set");
    } else if (isSandbox(e.SANDBOX)) {
      for (const name of ["STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const) {
        if (e[name]) ctx.addIssue({ code: "custom", path: ["STRIPE_SECRET_KEY"], message: `required when ${name} is set` });
      }
    }
    // Live BitPay notifications are only believed with their secret.
    if (e.BITPAY_API_TOKEN) required("BITPAY_NOTIFICATION_SECRET", "required when BITPAY_API_TOKEN is set");
    else if (e.BITPAY_NOTIFICATION_SECRET) required("BITPAY_API_TOKEN", "required when BITPAY_NOTIFICATION_SECRET is set");
    // PayPal needs all three: the client credentials, and the webhook id its signatures are verified with.
    const paypal = ["PAYPAL_CLIENT_ID", "PAYPAL_CLIENT_SECRET", "PAYPAL_WEBHOOK_ID"] as const;
    const given = paypal.filter((name) => e[name]);
    if (given.length > 0) {
      for (const name of paypal) required(name, `required when ${given.join(" and ")} ${given.length > 1 ? "are" : "is"} set`);
      // Outside sandbox mode the deployment says which PayPal it takes money with: a default of PayPal's
      // sandbox (test money) could give plans away, one of production could bill a staging site's testers.
      if (!isSandbox(e.SANDBOX)) required("PAYPAL_ENVIRONMENT", "required with PayPal credentials outside sandbox mode (production or sandbox)");
    }
    // Manual setup needs both outside sandbox mode: the servers' tokens, and the servers the configurations name.
    if (!isSandbox(e.SANDBOX)) {
      if (e.VPN_NODE_TOKENS) required("VPN_SERVERS_FILE", "required when VPN_NODE_TOKENS is set");
      else if (e.VPN_SERVERS_FILE) required("VPN_NODE_TOKENS", "required when VPN_SERVERS_FILE is set");
    }
    // Live Google sign-in: the portal exchanges the code with the client secret.
    if (e.GOOGLE_CLIENT_ID) required("GOOGLE_CLIENT_SECRET", "required when GOOGLE_CLIENT_ID is set");
    else if (e.GOOGLE_CLIENT_SECRET && !isSandbox(e.SANDBOX)) required("GOOGLE_CLIENT_ID", "required when GOOGLE_CLIENT_SECRET is set");
    // Live Sign in with Apple signs its client secret with the team's key: all three are needed.
    if (e.APPLE_CLIENT_ID) {
      for (const name of ["APPLE_TEAM_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY"] as const) required(name, "required when APPLE_CLIENT_ID is set");
    } else {
      for (const name of ["APPLE_TEAM_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY"] as const) {
        if (e[name]) ctx.addIssue({ code: "custom", path: ["APPLE_CLIENT_ID"], message: `required when ${name} is set` });
      }
    }
  });

/** VPN_NODE_TOKENS: comma-separated, blanks around each ignored. */
function parseNodeTokens(value: string): string[] {
  return value
    .split(",")
    .map((token) => token.trim())
    .filter(Boolean);
}

const SANDBOX_VALUES = new Set(["true", "false", "1", "0", "yes", "no"]);

/** SANDBOX=true (or 1, yes): sandbox mode. Unset or anything else: not. */
export function isSandbox(value: string | undefined): boolean {
  return value !== undefined && ["true", "1", "yes"].includes(value.trim().toLowerCase());
}

/** A bad environment: every problem, one per variable ("NAME: what is wrong"). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment: ${problems.join("; ")}`);
    this.name = "ConfigError";
  }
}

/**
 * Reads and validates the API's environment. Throws one Error listing every bad variable, e.g.
 * `Invalid environment: LOGIN_MAX_FAILURES_PER_EMAIL: expected a positive integer`.
 */
export function loadApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`);
    throw new ConfigError(problems);
  }
  const e = result.data;
  const databaseUrl = e.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT ?? 3000}`).replace(/\/+$/, "");
  const sandbox = isSandbox(e.SANDBOX);
  // A missing credential never turns a stand-in on: outside sandbox mode the integration is off.
  const mode = (v: string | undefined): IntegrationMode => (v ? "live" : sandbox ? "sandbox" : "off");
  const integrations = {
    mail: mode(e.SMTP_URL),
    cards: mode(e.STRIPE_SECRET_KEY),
    crypto: mode(e.BITPAY_API_TOKEN),
    paypal: mode(e.PAYPAL_CLIENT_ID),
    google: mode(e.GOOGLE_CLIENT_ID),
    apple: mode(e.APPLE_CLIENT_ID),
    vpn: mode(e.VPN_NODE_TOKENS),
  };
  return {
    databaseUrl,
    database: parseDatabaseUrl(databaseUrl)!,
    postgresUser: e.PGUSER ?? e.USER,
    publicUrl,
    tokenTtlDays: e.TOKEN_TTL_DAYS ?? 30,
    login: {
      maxFailuresPerEmailPerIp: e.LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP ?? 10,
      maxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP ?? 50,
      maxFailuresPerEmail: e.LOGIN_MAX_FAILURES_PER_EMAIL ?? 100,
      maxSecondFactorFailuresPerAccount: e.TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT ?? 10,
      failureWindowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS ?? 900,
    },
    downloads: {
      windows: e.DOWNLOAD_WINDOWS_URL ?? DEFAULT_DOWNLOAD_WINDOWS_URL,
      mac: e.DOWNLOAD_MAC_URL ?? DEFAULT_DOWNLOAD_MAC_URL,
    },
    codes: {
      maxPerEmailPerHour: e.CODE_MAX_PER_EMAIL_PER_HOUR ?? 10,
      maxPerIpPerHour: e.CODE_MAX_PER_IP_PER_HOUR ?? 30,
    },
    mailFrom: e.MAIL_FROM ?? DEFAULT_MAIL_FROM,
    trustProxy: parseTrustProxy(e.TRUST_PROXY)!,
    identity: identityConfig(e, publicUrl, integrations),
    twoFactor: {
      encryptionKey: e.TWO_FACTOR_ENCRYPTION_KEY ? parseEncryptionKey(e.TWO_FACTOR_ENCRYPTION_KEY)! : DEVELOPMENT_TWO_FACTOR_KEY,
      developmentKey: !e.TWO_FACTOR_ENCRYPTION_KEY,
    },
    desktopCodes: {
      maxPerIp: e.DESKTOP_CODE_MAX_PER_IP ?? 10,
      windowSeconds: DESKTOP_CODE_WINDOW_SECONDS,
    },
    coupons: {
      maxPerIp: e.COUPON_MAX_ATTEMPTS_PER_IP ?? 20,
      maxPerAccount: e.COUPON_MAX_ATTEMPTS_PER_ACCOUNT ?? 20,
      windowSeconds: e.COUPON_ATTEMPT_WINDOW_SECONDS ?? 600,
    },
    cryptoInvoices: {
      maxPerIp: e.CRYPTO_INVOICE_MAX_PER_IP_PER_HOUR ?? 20,
      maxPerEmail: e.CRYPTO_INVOICE_MAX_PER_EMAIL_PER_HOUR ?? 10,
      windowSeconds: 3600,
    },
    support: {
      email: e.SUPPORT_EMAIL ?? (sandbox ? SANDBOX_SUPPORT_EMAIL : null),
      maxPerEmail: e.SUPPORT_MAX_PER_EMAIL_PER_HOUR ?? 5,
      maxPerIp: e.SUPPORT_MAX_PER_IP_PER_HOUR ?? 20,
      windowSeconds: 3600,
    },
    credentials: {
      smtpUrl: e.SMTP_URL,
      stripeSecretKey: e.STRIPE_SECRET_KEY,
      bitpayApiToken: e.BITPAY_API_TOKEN,
      googleClientId: e.GOOGLE_CLIENT_ID,
      appleClientId: e.APPLE_CLIENT_ID,
    },
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY,
      publishableKey: e.STRIPE_PUBLISHABLE_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      apiVersion: e.STRIPE_API_VERSION ?? STRIPE_API_VERSION,
      timeoutMs: e.STRIPE_TIMEOUT_MS ?? 20_000,
      sandboxFaults: e.STRIPE_SANDBOX_FAULTS,
    },
    bitpay: {
      token: e.BITPAY_API_TOKEN,
      baseUrl: e.BITPAY_BASE_URL ?? "https://test.bitpay.com/",
      notificationSecret: e.BITPAY_NOTIFICATION_SECRET,
    },
    paypal: {
      clientId: e.PAYPAL_CLIENT_ID,
      clientSecret: e.PAYPAL_CLIENT_SECRET,
      webhookId: e.PAYPAL_WEBHOOK_ID,
      environment: (e.PAYPAL_ENVIRONMENT as "production" | "sandbox" | undefined) ?? "sandbox",
    },
    vpn: {
      nodeTokens: e.VPN_NODE_TOKENS ? parseNodeTokens(e.VPN_NODE_TOKENS) : [],
      servers: e.VPN_SERVERS_FILE ?? null,
      authMaxFailuresPerUsername: e.VPN_AUTH_MAX_FAILURES_PER_USERNAME ?? 10,
      authFailureWindowSeconds: e.VPN_AUTH_FAILURE_WINDOW_SECONDS ?? 900,
    },
    adminApiToken: e.ADMIN_API_TOKEN,
    seller:
      e.SELLER_NAME && e.SELLER_ADDRESS && e.SELLER_VAT_ID
        ? { name: e.SELLER_NAME, addressLines: parseSellerAddress(e.SELLER_ADDRESS), vatId: e.SELLER_VAT_ID }
        : {
            name: e.SELLER_NAME ?? SANDBOX_SELLER.name,
            addressLines: e.SELLER_ADDRESS ? parseSellerAddress(e.SELLER_ADDRESS) : SANDBOX_SELLER.addressLines,
            vatId: e.SELLER_VAT_ID ?? SANDBOX_SELLER.vatId,
          },
    viesCheck: !sandbox && e.VIES_CHECK?.toLowerCase() === "true",
    taxRates: e.TAX_RATES_FILE ?? DEFAULT_TAX_RATES,
    jobsIntervalMs: (e.JOBS_INTERVAL_SECONDS ?? 900) * 1000,
    dunningGraceDays: e.DUNNING_GRACE_DAYS ?? 14,
    integrations,
    sandbox,
    production: e.NODE_ENV === "production",
    apiPort: e.API_PORT ?? 3001,
    logLevel: (e.LOG_LEVEL as LogLevel | undefined) ?? "info",
  };
}

type Env = z.output<typeof envSchema>;

function identityConfig(e: Env, publicUrl: string, modes: Record<"google" | "apple", IntegrationMode>): ApiConfig["identity"] {
  const issuer = (url: string) => url.replace(/\/+$/, "");
  const google: GoogleIdentityConfig | null =
    modes.google === "live"
      ? {
          issuer: issuer(e.GOOGLE_ISSUER ?? DEFAULT_GOOGLE_ISSUER),
          clientId: e.GOOGLE_CLIENT_ID!,
          clientSecret: e.GOOGLE_CLIENT_SECRET,
        }
      : modes.google === "sandbox"
        ? {
            issuer: issuer(e.GOOGLE_ISSUER ?? `${publicUrl}/dev/oidc/google`),
            clientId: SANDBOX_GOOGLE_CLIENT.clientId,
            // The sandbox provider knows its published client only (api/http/app.ts registers it).
            clientSecret: SANDBOX_GOOGLE_CLIENT.clientSecret,
          }
        : null;
  const apple: AppleIdentityConfig | null =
    modes.apple === "live"
      ? {
          issuer: issuer(e.APPLE_ISSUER ?? DEFAULT_APPLE_ISSUER),
          clientId: e.APPLE_CLIENT_ID!,
          // Checked present by the schema when APPLE_CLIENT_ID is set.
          teamId: e.APPLE_TEAM_ID!,
          keyId: e.APPLE_KEY_ID!,
          privateKey: unescapePem(e.APPLE_PRIVATE_KEY!),
        }
      : modes.apple === "sandbox"
        ? { issuer: issuer(e.APPLE_ISSUER ?? `${publicUrl}/dev/oidc/apple`), ...SANDBOX_APPLE_CLIENT }
        : null;
  return { google, apple };
}

/** Names of the integrations in a mode (e.g. those running as stand-ins, or those that are off). */
function integrationsIn(config: ApiConfig, mode: IntegrationMode): string[] {
  return Object.entries(config.integrations)
    .filter(([, m]) => m === mode)
    .map(([name]) => name);
}

/** The line printed at start: which mode, and what runs how. */
export function integrationsLine(config: ApiConfig): string {
  const parts = (["live", "sandbox", "off"] as const)
    .map((mode) => [mode, integrationsIn(config, mode)] as const)
    .filter(([, names]) => names.length > 0)
    .map(([mode, names]) => `${mode === "sandbox" ? "stand-in" : mode}: ${names.join(", ")}`);
  return config.sandbox
    ? `Sandbox mode (SANDBOX=true): no real payments or emails. Integrations ${parts.join("; ")}.`
    : `Live mode. Integrations ${parts.join("; ")}.`;
}
