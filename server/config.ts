import { z } from "zod";
import { type ApiConfig, ConfigError, isSandbox, loadApiConfig, type TrustProxySetting } from "../api/platform/config";
import type { PortalConfig } from "../app/config.server";

// The process's one configuration (docs/decisions/025): server.ts reads the environment once, here, and
// passes the parts down. A variable both halves use (PORT, PUBLIC_URL, SANDBOX, LOG_LEVEL, TRUST_PROXY, the
// identity providers, Stripe's publishable key, BitPay) is validated once, by the API's schema; the schema
// below holds only what the portal alone reads.

/** What server.ts itself needs beyond the two halves. */
export interface ServerConfig {
  /** The portal's port (PORT, default 3000) and host (HOST, default every interface). */
  port: number;
  host: string;
  /** Express's "trust proxy" value, from TRUST_PROXY. */
  trustProxy: boolean | number | string;
  /**
   * `npm run dev` started this process (server.ts --dev): there is a dev server to reload builds from.
   * Never read from the environment: a deploy may carry REMIX_DEV_ORIGIN, and it changes nothing.
   */
  dev: boolean;
  /** Origins a form may post to on its way to a live identity provider (sandbox ones are this origin). */
  liveIdentityOrigins: string[];
  /** Live Stripe's publishable key: Stripe.js and its hosted pages are allowed on the checkout only then. */
  stripePublishableKey?: string;
  /** Live BitPay's origin: the crypto pages' forms go on to its invoice page. */
  bitpayOrigin?: string;
  /** Live PayPal's web origin (its approval page; www.sandbox.paypal.com for PayPal's sandbox): the checkout goes there. */
  paypalOrigin?: string;
}

export interface ProcessConfig {
  api: ApiConfig;
  portal: PortalConfig;
  server: ServerConfig;
}

export interface LoadConfigOptions {
  /**
   * The session secret to use when SESSION_SECRET is unset where that is allowed (sandbox mode only):
   * server.ts keeps a generated one in data/. Called only then.
   */
  generatedSessionSecret: () => string;
  /** `npm run dev` started this process (its `--dev` argument): live reload. It does not choose sandbox mode. */
  devServer?: boolean;
}

const SESSION_SECRET_REQUIRED = "required outside sandbox mode (at least 32 characters)";

const portalSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().optional(),
  // Empty means "embedded": server.ts mounts the product API in-process and the portal calls it over loopback.
  API_URL: z.union([z.url(), z.literal("")]).optional(),
  API_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  // Comma-separated; the first signs, all verify, so a secret can be rotated without signing anyone out.
  SESSION_SECRET: z
    .string()
    .refine((value) => value.split(",").every((secret) => secret.trim().length >= 32), {
      message: "each comma-separated secret must be at least 32 characters",
    })
    .optional(),
  // The desktop app's custom URL scheme: sign-in hands it the session token as <scheme>://auth?token=…
  DESKTOP_APP_SCHEME: z
    .string()
    .regex(/^[a-z][a-z0-9+.-]*$/, "must be a URL scheme such as vpnapp")
    .default("vpnapp"),
});

/**
 * Reads and validates the whole environment: the API's part and the portal's. Throws one ConfigError
 * naming every missing or invalid variable.
 */
export function loadConfig(
  source: Record<string, string | undefined>,
  options: LoadConfigOptions,
): ProcessConfig {
  // An empty value (`PUBLIC_URL=` in .env) means "use the default".
  // Sandbox mode is SANDBOX=true and nothing else (docs/decisions/019): `npm start` and `npm run dev` say so
  // when nothing is configured (scripts/sandbox-default.mjs), never this reading.
  const env = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== "")) as Record<string, string | undefined>;

  const problems: string[] = [];
  const collect = (list: string[]) => {
    for (const problem of list) if (!problems.includes(problem)) problems.push(problem);
  };
  let api: ApiConfig | undefined;
  try {
    api = loadApiConfig(env);
  } catch (error) {
    collect(error instanceof ConfigError ? error.problems : [(error as Error).message]);
  }
  const parsed = portalSchema.safeParse(env);
  if (!parsed.success) collect(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));

  let sessionSecret = parsed.data?.SESSION_SECRET;
  if (env.SESSION_SECRET === undefined) {
    // Outside sandbox mode it is always required, whatever NODE_ENV says (a deploy may not set it): a
    // generated one would be per instance, signing everyone out at each new container and between replicas.
    if (!isSandbox(env.SANDBOX)) collect([`SESSION_SECRET: ${SESSION_SECRET_REQUIRED}`]);
    else sessionSecret = options.generatedSessionSecret();
  }
  if (!api || !parsed.success || sessionSecret === undefined || problems.length > 0) throw new ConfigError(problems);

  const portal = parsed.data;
  const port = Number(env.PORT ?? 3000); // validated by the API's schema
  const apiBaseUrl = (portal.API_URL || `http://127.0.0.1:${port}`).replace(/\/$/, "");
  const { google, apple } = api.identity;
  const modes = api.integrations;
  return {
    api,
    portal: {
      publicUrl: api.publicUrl,
      apiBaseUrl,
      embeddedApi: !portal.API_URL,
      apiTimeoutMs: portal.API_TIMEOUT_MS,
      sessionSecrets: sessionSecret.split(",").map((secret) => secret.trim()),
      // Secure cookies whenever the portal is served over https; plain-http localhost keeps working.
      secureCookies: api.publicUrl.startsWith("https:"),
      sandbox: api.sandbox,
      desktopAppScheme: portal.DESKTOP_APP_SCHEME,
      identity: {
        google:
          google && modes.google !== "off"
            ? { mode: modes.google, issuer: google.issuer, clientId: google.clientId, clientSecret: google.clientSecret ?? "" }
            : null,
        apple:
          apple && modes.apple !== "off"
            ? {
                mode: modes.apple,
                issuer: apple.issuer,
                clientId: apple.clientId,
                teamId: apple.teamId,
                keyId: apple.keyId,
                privateKeyPem: apple.privateKey,
              }
            : null,
      },
      supportForm: api.support.email !== null,
    },
    server: {
      port,
      host: portal.HOST ?? "",
      trustProxy: expressTrustProxy(api.trustProxy),
      dev: options.devServer === true,
      liveIdentityOrigins: [
        ...(modes.google === "live" && google ? [new URL(google.issuer).origin] : []),
        ...(modes.apple === "live" && apple ? [new URL(apple.issuer).origin] : []),
      ],
      stripePublishableKey: api.stripe.publishableKey,
      bitpayOrigin: api.bitpay.token ? new URL(api.bitpay.baseUrl).origin : undefined,
      paypalOrigin: api.paypal.clientId ? (api.paypal.environment === "production" ? "https://www.paypal.com" : "https://www.sandbox.paypal.com") : undefined,
    },
  };
}

/** Express's "trust proxy" value for the API's reading of TRUST_PROXY: empty = trust nothing (use the socket address). */
export function expressTrustProxy(setting: TrustProxySetting): boolean | number | string {
  switch (setting.kind) {
    case "none":
      return false;
    case "all":
      return true;
    case "hops":
      return setting.hops;
    case "list":
      return setting.entries.join(",");
  }
}
