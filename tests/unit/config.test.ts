import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ConfigError } from "../../api/platform/config";
import { loadConfig } from "../../server/config";

// The process's one configuration (docs/decisions/025): read once at boot by server.ts (and by
// api/server.ts when the API runs alone), then passed down.

const SECRET = "config-test-session-secret-0123456789abcdef";
const LIVE = {
  SMTP_URL: "smtp://127.0.0.1:9",
  STRIPE_SECRET_KEY: "sk_test_config",
  STRIPE_PUBLISHABLE_KEY: "pk_test_config",
  STRIPE_WEBHOOK_SECRET: "whsec_config",
  TWO_FACTOR_ENCRYPTION_KEY: "ef".repeat(32),
  SELLER_NAME: "VPN Test GmbH",
  SELLER_ADDRESS: "Teststraße 1\\n10115 Berlin\\nGermany",
  SELLER_VAT_ID: "DE123456789",
  SESSION_SECRET: SECRET,
};
const unusedSecret = () => {
  throw new Error("no session secret should be generated here");
};

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected the configuration to be refused");
}

describe("loadConfig", () => {
  it("runs on sandbox defaults when nothing is configured but SANDBOX=true", () => {
    const generated = vi.fn(() => "generated-secret-0123456789abcdef0123456789");
    const { api, portal, server } = loadConfig({ SANDBOX: "true" }, { generatedSessionSecret: generated });
    expect(generated).toHaveBeenCalledOnce();
    expect(api.sandbox).toBe(true);
    expect(portal).toEqual({
      publicUrl: "http://localhost:3000",
      apiBaseUrl: "http://127.0.0.1:3000",
      embeddedApi: true,
      apiTimeoutMs: 10_000,
      sessionSecrets: ["generated-secret-0123456789abcdef0123456789"],
      secureCookies: false,
      sandbox: true,
      desktopAppScheme: "vpnapp",
      identity: {
        google: {
          mode: "sandbox",
          issuer: "http://localhost:3000/dev/oidc/google",
          clientId: "sandbox-google-client",
          clientSecret: "sandbox-google-secret",
        },
        apple: {
          mode: "sandbox",
          issuer: "http://localhost:3000/dev/oidc/apple",
          clientId: "sandbox.apple.client",
          teamId: "SANDBOXTEAM",
          keyId: "SANDBOXKEY",
          privateKeyPem: undefined,
        },
      },
      // Sandbox mode has its own support address: the contact form is on.
      supportForm: true,
    });
    expect(server).toEqual({
      port: 3000,
      host: "",
      trustProxy: false,
      dev: false,
      liveIdentityOrigins: [],
      stripePublishableKey: undefined,
      bitpayOrigin: undefined,
      paypalOrigin: undefined,
    });
  });

  it("takes the portal's own variables, and the shared ones from the API's reading", () => {
    const { portal, server } = loadConfig(
      {
        ...LIVE,
        SESSION_SECRET: `${SECRET}, older-session-secret-0123456789abcdef0123`,
        PORT: "4100",
        HOST: "127.0.0.1",
        PUBLIC_URL: "https://vpn.example.com/",
        API_URL: "http://api.internal:3001/",
        API_TIMEOUT_MS: "2500",
        DESKTOP_APP_SCHEME: "myvpn",
        TRUST_PROXY: "loopback, 10.0.0.0/8",
        GOOGLE_CLIENT_ID: "live.apps.googleusercontent.com",
        GOOGLE_CLIENT_SECRET: "live-google-secret",
        BITPAY_API_TOKEN: "bitpay-token",
        BITPAY_NOTIFICATION_SECRET: "n".repeat(24),
        BITPAY_BASE_URL: "https://bitpay.com/",
      },
      { generatedSessionSecret: unusedSecret },
    );
    expect(portal).toMatchObject({
      publicUrl: "https://vpn.example.com",
      apiBaseUrl: "http://api.internal:3001",
      embeddedApi: false,
      apiTimeoutMs: 2500,
      sessionSecrets: [SECRET, "older-session-secret-0123456789abcdef0123"],
      secureCookies: true,
      sandbox: false,
      desktopAppScheme: "myvpn",
      identity: {
        google: { mode: "live", issuer: "https://accounts.google.com", clientId: "live.apps.googleusercontent.com", clientSecret: "live-google-secret" },
        apple: null,
      },
    });
    expect(server).toEqual({
      port: 4100,
      host: "127.0.0.1",
      trustProxy: "loopback,10.0.0.0/8",
      dev: false,
      liveIdentityOrigins: ["https://accounts.google.com"],
      stripePublishableKey: "pk_test_config",
      bitpayOrigin: "https://bitpay.com",
      paypalOrigin: undefined,
    });
  });

  it("names every missing or invalid variable, of both parts, in one error", () => {
    const problems = problemsOf(() =>
      loadConfig(
        { NODE_ENV: "production", LOG_LEVEL: "loud", API_TIMEOUT_MS: "0", DESKTOP_APP_SCHEME: "Not A Scheme" },
        { generatedSessionSecret: unusedSecret },
      ),
    );
    for (const name of ["SMTP_URL", "STRIPE_SECRET_KEY", "LOG_LEVEL", "API_TIMEOUT_MS", "DESKTOP_APP_SCHEME"]) {
      expect(problems.some((problem) => problem.startsWith(`${name}: `))).toBe(true);
    }
    expect(problems).toContain("SESSION_SECRET: required outside sandbox mode (at least 32 characters)");
    expect(problemsOf(() => loadConfig({ ...LIVE, SESSION_SECRET: "short" }, { generatedSessionSecret: unusedSecret }))).toEqual([
      "SESSION_SECRET: each comma-separated secret must be at least 32 characters",
    ]);
  });

  it("generates a session secret in sandbox mode only; outside it SESSION_SECRET is required whatever NODE_ENV says", () => {
    const generated = () => "generated-secret-0123456789abcdef0123456789";
    const { SESSION_SECRET: _, ...withoutSecret } = LIVE;
    // No NODE_ENV (a deploy that forgets it), or development: still a live start, which must bring its own.
    for (const nodeEnv of [{}, { NODE_ENV: "development" }, { NODE_ENV: "production" }]) {
      expect(problemsOf(() => loadConfig({ ...withoutSecret, ...nodeEnv }, { generatedSessionSecret: unusedSecret }))).toEqual([
        "SESSION_SECRET: required outside sandbox mode (at least 32 characters)",
      ]);
    }
    expect(loadConfig({ SANDBOX: "true" }, { generatedSessionSecret: generated }).portal.sessionSecrets).toEqual([generated()]);
    expect(loadConfig({ NODE_ENV: "production", SANDBOX: "true" }, { generatedSessionSecret: generated }).portal.sessionSecrets).toEqual([
      generated(),
    ]);
    expect(loadConfig({ ...LIVE, NODE_ENV: "production" }, { generatedSessionSecret: unusedSecret }).portal.sessionSecrets).toEqual([SECRET]);
  });

  it("takes sandbox mode from SANDBOX alone: REMIX_DEV_ORIGIN (which a deploy may carry) turns on neither it nor live reload", () => {
    for (const nodeEnv of [{}, { NODE_ENV: "production" }]) {
      const live = loadConfig({ ...LIVE, ...nodeEnv, REMIX_DEV_ORIGIN: "http://localhost:3001" }, { generatedSessionSecret: unusedSecret });
      expect(live.api.sandbox).toBe(false);
      expect(live.portal.sandbox).toBe(false);
      expect(live.api.integrations.google).toBe("off");
      expect(live.server.dev).toBe(false);
    }
    // Without a configuration it is no sandbox either: it is refused, naming what a live start needs.
    expect(problemsOf(() => loadConfig({ REMIX_DEV_ORIGIN: "http://localhost:3001", SESSION_SECRET: SECRET }, { generatedSessionSecret: unusedSecret }))).toContain(
      "SMTP_URL: required outside sandbox mode (SANDBOX=true runs the product on stand-ins)",
    );
    // `npm run dev` says it is the dev server by its `--dev` argument (scripts/dev.mjs); sandbox mode is still SANDBOX's.
    expect(loadConfig(LIVE, { generatedSessionSecret: unusedSecret, devServer: true }).server).toMatchObject({ dev: true });
    expect(loadConfig(LIVE, { generatedSessionSecret: unusedSecret, devServer: true }).api.sandbox).toBe(false);
    expect(loadConfig({ SANDBOX: "true", SESSION_SECRET: SECRET }, { generatedSessionSecret: unusedSecret, devServer: true }).api.sandbox).toBe(true);
  });

  it("turns the help page's contact form off outside sandbox mode without SUPPORT_EMAIL (no stand-in address)", () => {
    expect(loadConfig(LIVE, { generatedSessionSecret: unusedSecret }).portal.supportForm).toBe(false);
    const configured = loadConfig({ ...LIVE, SUPPORT_EMAIL: "help@example.org" }, { generatedSessionSecret: unusedSecret });
    expect(configured.portal.supportForm).toBe(true);
    expect(configured.api.support.email).toBe("help@example.org");
  });
});

describe("PayPal's configuration (issue 23)", () => {
  const load = (env: Record<string, string>) => loadConfig(env, { generatedSessionSecret: unusedSecret }).api;
  const PAYPAL = { PAYPAL_CLIENT_ID: "client-id", PAYPAL_CLIENT_SECRET: "client-secret", PAYPAL_WEBHOOK_ID: "WH-ID" };

  it("is off outside sandbox mode without credentials, the stand-in in sandbox mode, live with all three", () => {
    expect(load(LIVE).integrations.paypal).toBe("off");
    expect(load({ SANDBOX: "true", SESSION_SECRET: SECRET }).integrations.paypal).toBe("sandbox");
    const live = load({ ...LIVE, ...PAYPAL, PAYPAL_ENVIRONMENT: "production" });
    expect(live.integrations.paypal).toBe("live");
    expect(live.paypal).toEqual({ clientId: "client-id", clientSecret: "client-secret", webhookId: "WH-ID", environment: "production" });
    expect(load({ ...LIVE, ...PAYPAL, PAYPAL_ENVIRONMENT: "sandbox" }).paypal.environment).toBe("sandbox");
    // In sandbox mode, real PayPal credentials are PayPal's sandbox unless it says production.
    expect(load({ SANDBOX: "true", SESSION_SECRET: SECRET, ...PAYPAL }).paypal.environment).toBe("sandbox");
  });

  it("refuses a partial set and an unknown environment, in either mode", () => {
    expect(problemsOf(() => load({ ...LIVE, PAYPAL_CLIENT_ID: "client-id" }))).toEqual([
      "PAYPAL_CLIENT_SECRET: required when PAYPAL_CLIENT_ID is set",
      "PAYPAL_WEBHOOK_ID: required when PAYPAL_CLIENT_ID is set",
      "PAYPAL_ENVIRONMENT: required with PayPal credentials outside sandbox mode (production or sandbox)",
    ]);
    expect(problemsOf(() => load({ SANDBOX: "true", SESSION_SECRET: SECRET, PAYPAL_WEBHOOK_ID: "WH-ID" }))).toEqual([
      "PAYPAL_CLIENT_ID: required when PAYPAL_WEBHOOK_ID is set",
      "PAYPAL_CLIENT_SECRET: required when PAYPAL_WEBHOOK_ID is set",
    ]);
    expect(problemsOf(() => load({ ...LIVE, ...PAYPAL, PAYPAL_ENVIRONMENT: "live" }))[0]).toMatch(/^PAYPAL_ENVIRONMENT: expected "production"/);
    // Outside sandbox mode the deployment must say which PayPal takes the money: no default.
    expect(problemsOf(() => load({ ...LIVE, ...PAYPAL }))).toEqual([
      "PAYPAL_ENVIRONMENT: required with PayPal credentials outside sandbox mode (production or sandbox)",
    ]);
  });

  it("gives the server PayPal's web origin for the checkout's CSP only when PayPal is live", () => {
    const server = (env: Record<string, string>) => loadConfig(env, { generatedSessionSecret: unusedSecret }).server;
    expect(server({ ...LIVE, ...PAYPAL, PAYPAL_ENVIRONMENT: "sandbox" }).paypalOrigin).toBe("https://www.sandbox.paypal.com");
    expect(server({ ...LIVE, ...PAYPAL, PAYPAL_ENVIRONMENT: "production" }).paypalOrigin).toBe("https://www.paypal.com");
    expect(server(LIVE).paypalOrigin).toBeUndefined();
    expect(server({ SANDBOX: "true", SESSION_SECRET: SECRET }).paypalOrigin).toBeUndefined();
  });
});

describe("process.env", () => {
  // Only the boot readers read the environment: server.ts (root) for the whole process, api/server.ts
  // for the standalone API. Everything else gets its configuration passed down.
  const BOOT_READERS = new Set(["api/server.ts"]);

  function sourceFiles(folder: string): string[] {
    return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
    });
  }

  it("is read by no module under app/, api/ or server/ but the boot readers", () => {
    const readers = ["app", "api", "server"]
      .flatMap(sourceFiles)
      .filter((file) => !BOOT_READERS.has(file) && readFileSync(file, "utf8").includes("process.env"));
    expect(readers).toEqual([]);
  });

  it("is read once by server.ts, to load the configuration", () => {
    const source = readFileSync("server.ts", "utf8");
    expect(source.match(/process\.env/g)).toHaveLength(1);
    expect(source).toContain("loadConfig(process.env,");
  });
});
