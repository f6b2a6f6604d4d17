import { describe, expect, it } from "vitest";
import { ConfigError, integrationsLine, loadApiConfig, parseDatabaseUrl, parseTrustProxy } from "../../api/platform/config";
import { tooManyLoginsMessage } from "../../api/platform/rate-limit";
import { LIVE_ESSENTIALS } from "./harness";
import { bearerToken, generateToken, hashToken, looksLikeToken } from "../../api/platform/tokens";
import { clientAddressKey, createTrustFunction } from "../../api/platform/trust-proxy";

describe("sandbox mode is a deliberate setting (issue 17)", () => {
  it("refuses to start without it when mail and a card gateway are missing, naming every variable", () => {
    let error: unknown;
    try {
      loadApiConfig({});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const name of ["SMTP_URL", "STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET", "TWO_FACTOR_ENCRYPTION_KEY"]) {
      expect(problems).toContain(`${name}: required outside sandbox mode (SANDBOX=true runs the product on stand-ins)`);
    }
    for (const name of ["SELLER_NAME", "SELLER_ADDRESS", "SELLER_VAT_ID"]) {
      expect(problems).toContain(`${name}: required outside sandbox mode: every invoice names the seller (legal name, address, VAT number)`);
    }
  });

  it("turns an integration without credentials off outside sandbox mode, never into its stand-in", () => {
    const config = loadApiConfig(LIVE_ESSENTIALS);
    expect(config.sandbox).toBe(false);
    expect(config.integrations).toEqual({ mail: "live", cards: "live", crypto: "off", paypal: "off", google: "off", apple: "off", vpn: "off" });
    expect(config.identity).toEqual({ google: null, apple: null });
    expect(config.twoFactor.developmentKey).toBe(false);
    expect(integrationsLine(config)).toBe("Live mode. Integrations live: mail, cards; off: crypto, paypal, google, apple, vpn.");
  });

  it("runs every integration without credentials on its stand-in in sandbox mode", () => {
    for (const value of ["true", "1", "yes", "TRUE"]) expect(loadApiConfig({ SANDBOX: value }).sandbox).toBe(true);
    const config = loadApiConfig({ SANDBOX: "true", SMTP_URL: "smtp://127.0.0.1:2525" });
    expect(config.integrations).toEqual({ mail: "live", cards: "sandbox", crypto: "sandbox", paypal: "sandbox", google: "sandbox", apple: "sandbox", vpn: "sandbox" });
    expect(integrationsLine(config)).toBe(
      "Sandbox mode (SANDBOX=true): no real payments or emails. Integrations live: mail; stand-in: cards, crypto, paypal, google, apple, vpn.",
    );
    expect(() => loadApiConfig({ SANDBOX: "maybe" })).toThrow('SANDBOX: expected "true"');
    expect(loadApiConfig({ SANDBOX: "false", ...LIVE_ESSENTIALS }).sandbox).toBe(false);
  });

  it("refuses a half-configured integration in either mode", () => {
    for (const mode of [{}, { SANDBOX: "true" }]) {
      expect(() => loadApiConfig({ ...LIVE_ESSENTIALS, ...mode, GOOGLE_CLIENT_ID: "x.apps.googleusercontent.com" })).toThrow(
        "GOOGLE_CLIENT_SECRET: required when GOOGLE_CLIENT_ID is set",
      );
      expect(() => loadApiConfig({ ...LIVE_ESSENTIALS, ...mode, APPLE_TEAM_ID: "TEAM" })).toThrow("APPLE_CLIENT_ID: required when APPLE_TEAM_ID is set");
      expect(() => loadApiConfig({ ...LIVE_ESSENTIALS, ...mode, BITPAY_NOTIFICATION_SECRET: "s".repeat(24) })).toThrow(
        "BITPAY_API_TOKEN: required when BITPAY_NOTIFICATION_SECRET is set",
      );
    }
    expect(() => loadApiConfig({ SANDBOX: "true", STRIPE_PUBLISHABLE_KEY: "pk_test_1" })).toThrow(
      "STRIPE_SECRET_KEY: required when STRIPE_PUBLISHABLE_KEY is set",
    );
    expect(() => loadApiConfig({ ...LIVE_ESSENTIALS, GOOGLE_CLIENT_SECRET: "secret" })).toThrow("GOOGLE_CLIENT_ID: required when GOOGLE_CLIENT_SECRET is set");
  });
});

describe("loadApiConfig", () => {
  it("has defaults for everything", () => {
    const config = loadApiConfig({ SANDBOX: "true" });
    expect(config).toMatchObject({
      databaseUrl: "./data/portal.sqlite",
      database: { kind: "sqlite", path: "./data/portal.sqlite" },
      publicUrl: "http://localhost:3000",
      tokenTtlDays: 30,
      login: { maxFailuresPerEmailPerIp: 10, maxFailuresPerIp: 50, maxFailuresPerEmail: 100, maxSecondFactorFailuresPerAccount: 10, failureWindowSeconds: 900 },
      downloads: {
        windows: "https://downloads.example.com/vpn/windows/VPN-Setup.exe",
        mac: "https://downloads.example.com/vpn/macos/VPN.dmg",
      },
      trustProxy: { kind: "none" },
      integrations: { mail: "sandbox", cards: "sandbox", crypto: "sandbox", google: "sandbox", apple: "sandbox" },
      sandbox: true,
      apiPort: 3001,
    });
  });

  it("derives PUBLIC_URL from PORT and reads every variable", () => {
    expect(loadApiConfig({ SANDBOX: "true", PORT: "4000" }).publicUrl).toBe("http://localhost:4000");
    const config = loadApiConfig({
      SANDBOX: "true",
      DATABASE_URL: "postgresql://u:p@db.internal:5432/portal",
      PUBLIC_URL: "https://vpn.example.com/",
      TOKEN_TTL_DAYS: "7",
      LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "3",
      LOGIN_MAX_FAILURES_PER_EMAIL: "5",
      LOGIN_MAX_FAILURES_PER_IP: "20",
      LOGIN_FAILURE_WINDOW_SECONDS: "60",
      TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT: "4",
      DOWNLOAD_WINDOWS_URL: "https://a.example/w.exe",
      DOWNLOAD_MAC_URL: "https://a.example/m.dmg",
      TRUST_PROXY: "1",
      STRIPE_SECRET_KEY: "sk_test_123",
      STRIPE_PUBLISHABLE_KEY: "pk_test_123",
      STRIPE_WEBHOOK_SECRET: "whsec_123",
      API_PORT: "4100",
    });
    expect(config).toMatchObject({
      database: { kind: "postgres", url: "postgresql://u:p@db.internal:5432/portal" },
      publicUrl: "https://vpn.example.com",
      tokenTtlDays: 7,
      login: { maxFailuresPerEmailPerIp: 3, maxFailuresPerEmail: 5, maxFailuresPerIp: 20, maxSecondFactorFailuresPerAccount: 4, failureWindowSeconds: 60 },
      downloads: { windows: "https://a.example/w.exe", mac: "https://a.example/m.dmg" },
      trustProxy: { kind: "hops", hops: 1 },
      integrations: { mail: "sandbox", cards: "live", crypto: "sandbox", google: "sandbox", apple: "sandbox" },
      stripe: { secretKey: "sk_test_123", publishableKey: "pk_test_123", webhookSecret: "whsec_123", apiVersion: "2026-10-28.endive" },
      sandbox: true,
      apiPort: 4100,
    });
    // Live Stripe needs its publishable key and webhook secret too.
    expect(() => loadApiConfig({ SANDBOX: "true", STRIPE_SECRET_KEY: "sk_test_123" })).toThrow(
      "STRIPE_PUBLISHABLE_KEY: required when STRIPE_SECRET_KEY is set; STRIPE_WEBHOOK_SECRET: required when STRIPE_SECRET_KEY is set",
    );
  });

  it("treats empty variables as unset", () => {
    const config = loadApiConfig({ SANDBOX: "true", SMTP_URL: "", TOKEN_TTL_DAYS: "", TRUST_PROXY: "" });
    expect(config.sandbox).toBe(true);
    expect(config.tokenTtlDays).toBe(30);
  });

  it("lists every bad variable and why", () => {
    let message = "";
    try {
      loadApiConfig({
        LOGIN_MAX_FAILURES_PER_EMAIL: "0",
        LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "-1",
        LOGIN_MAX_FAILURES_PER_IP: "ten",
        TOKEN_TTL_DAYS: "1.5",
        PUBLIC_URL: "not a url",
        TRUST_PROXY: "10.0.0.0/99",
        DATABASE_URL: "mysql://localhost/x",
        API_PORT: "70000",
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid environment: /);
    expect(message).toContain("LOGIN_MAX_FAILURES_PER_EMAIL: expected a positive integer");
    expect(message).toContain("LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: expected a positive integer");
    expect(message).toContain("LOGIN_MAX_FAILURES_PER_IP: expected a positive integer");
    expect(message).toContain("TOKEN_TTL_DAYS: expected a positive integer");
    for (const name of ["PUBLIC_URL", "TRUST_PROXY", "DATABASE_URL", "API_PORT"]) expect(message).toContain(`${name}: `);
  });

  it("parses DATABASE_URL forms", () => {
    expect(parseDatabaseUrl("./data/x.sqlite")).toEqual({ kind: "sqlite", path: "./data/x.sqlite" });
    expect(parseDatabaseUrl("file:./data/x.sqlite")).toEqual({ kind: "sqlite", path: "./data/x.sqlite" });
    expect(parseDatabaseUrl("file:///var/lib/x.sqlite")).toEqual({ kind: "sqlite", path: "/var/lib/x.sqlite" });
    expect(parseDatabaseUrl("postgres://h/db")).toEqual({ kind: "postgres", url: "postgres://h/db" });
    expect(parseDatabaseUrl("mysql://h/db")).toBeNull();
  });

  it("parses TRUST_PROXY forms", () => {
    expect(parseTrustProxy("")).toEqual({ kind: "none" });
    expect(parseTrustProxy("false")).toEqual({ kind: "none" });
    expect(parseTrustProxy("true")).toEqual({ kind: "all" });
    expect(parseTrustProxy("2")).toEqual({ kind: "hops", hops: 2 });
    expect(parseTrustProxy("10.0.0.0/8, 192.168.1.5,fd00::/8,uniquelocal")).toEqual({
      kind: "list",
      entries: ["10.0.0.0/8", "192.168.1.5", "fd00::/8", "uniquelocal"],
    });
    expect(parseTrustProxy("example.com")).toBeNull();
  });
});

describe("trust proxy function", () => {
  it("trusts loopback only by default, so an outside caller's X-Forwarded-For is ignored", () => {
    const trust = createTrustFunction({ kind: "none" });
    expect(trust("127.0.0.1", 0)).toBe(true);
    expect(trust("::1", 0)).toBe(true);
    expect(trust("::ffff:127.0.0.1", 0)).toBe(true);
    expect(trust("203.0.113.5", 0)).toBe(false);
    expect(trust("10.0.0.1", 0)).toBe(false);
  });

  it("adds TRUST_PROXY subnets and hops", () => {
    const list = createTrustFunction({ kind: "list", entries: ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"] });
    expect(list("10.1.2.3", 1)).toBe(true);
    expect(list("::ffff:10.1.2.3", 1)).toBe(true);
    expect(list("2001:db8::1", 1)).toBe(true);
    expect(list("192.0.2.7", 1)).toBe(true);
    expect(list("192.0.2.8", 1)).toBe(false);
    expect(list("127.0.0.1", 2)).toBe(true);

    const hops = createTrustFunction({ kind: "hops", hops: 1 });
    expect(hops("203.0.113.5", 0)).toBe(true);
    expect(hops("203.0.113.6", 1)).toBe(false);
    expect(hops("127.0.0.1", 3)).toBe(true);

    expect(createTrustFunction({ kind: "all" })("203.0.113.5", 5)).toBe(true);
  });

  it("keys IPv6 clients by their /64", () => {
    expect(clientAddressKey("203.0.113.5")).toBe("203.0.113.5");
    expect(clientAddressKey("::ffff:203.0.113.5")).toBe("203.0.113.5");
    expect(clientAddressKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(clientAddressKey("2001:db8:1:2::9")).toBe("2001:db8:1:2::/64");
    expect(clientAddressKey(undefined)).toBe("unknown");
  });
});

describe("tokens", () => {
  it("are 32 random bytes in base64url, stored as sha256 hex", () => {
    const token = generateToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(looksLikeToken(token)).toBe(true);
    expect(generateToken()).not.toBe(token);
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(bearerToken(`Bearer ${token}`)).toBe(token);
    expect(bearerToken(`bearer ${token}`)).toBe(token);
    expect(bearerToken(`Basic ${token}`)).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

describe("rate-limit message", () => {
  it("rounds minutes up, at least 1", () => {
    expect(tooManyLoginsMessage(900)).toBe("Too many failed sign-in attempts. Please try again in 15 minutes.");
    expect(tooManyLoginsMessage(61)).toBe("Too many failed sign-in attempts. Please try again in 2 minutes.");
    expect(tooManyLoginsMessage(1)).toBe("Too many failed sign-in attempts. Please try again in 1 minute.");
  });
});

