import { z } from "zod";

// The portal's own configuration. The product API validates its own variables (api/platform/config.ts).
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().optional(),
  PUBLIC_URL: z.url().optional(),
  // Empty means "embedded": server.ts mounts the product API in-process and the portal calls it over loopback.
  API_URL: z.union([z.url(), z.literal("")]).optional(),
  API_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  // Comma-separated; the first signs, all verify, so a secret can be rotated without signing anyone out.
  SESSION_SECRET: z
    .string({ error: "required outside sandbox mode (at least 32 characters)" })
    .min(1, "required outside sandbox mode (at least 32 characters)")
    .refine((value) => value.split(",").every((secret) => secret.trim().length >= 32), {
      message: "each comma-separated secret must be at least 32 characters",
    }),
  TRUST_PROXY: z.string().optional(),
  // pino's levels (the API validates the same variable); server.ts logs JSON lines at this level and above.
  LOG_LEVEL: z.enum(["silent", "fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  // Sandbox mode (docs/decisions/019): integrations without credentials run on their stand-ins and a
  // banner says so. The same variable as the API's (api/platform/config.ts); outside it they are off.
  SANDBOX: z
    .string()
    .optional()
    .refine((v) => v === undefined || ["true", "false", "1", "0", "yes", "no"].includes(v.trim().toLowerCase()), {
      message: 'expected "true" or "false"',
    }),
  // Google and Apple sign-in: live when their client id is set; else the in-process OpenID sandbox in
  // sandbox mode, and off (no button, their routes 404) outside it.
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  GOOGLE_ISSUER: z.url().default("https://accounts.google.com"),
  APPLE_CLIENT_ID: z.string().optional(),
  APPLE_TEAM_ID: z.string().optional(),
  APPLE_KEY_ID: z.string().optional(),
  APPLE_PRIVATE_KEY: z.string().optional(),
  APPLE_ISSUER: z.url().default("https://appleid.apple.com"),
  // Live card payments: Stripe.js and its hosted pages are allowed by the CSP on the checkout only.
  STRIPE_PUBLISHABLE_KEY: z.string().optional(),
  // The desktop app's custom URL scheme: sign-in hands it the session token as <scheme>://auth?token=…
  DESKTOP_APP_SCHEME: z
    .string()
    .regex(/^[a-z][a-z0-9+.-]*$/, "must be a URL scheme such as vpnapp")
    .default("vpnapp"),
});

export type PortalEnv = z.infer<typeof envSchema> & {
  publicUrl: string;
  apiBaseUrl: string;
  embeddedApi: boolean;
  sessionSecrets: string[];
  secureCookies: boolean;
  sandbox: boolean;
  /** Which sign-in providers exist: live (client id set), sandbox (sandbox mode), or off. */
  identity: Record<"google" | "apple", "live" | "sandbox" | "off">;
};

let cached: PortalEnv | undefined;

export function parsePortalEnv(source: NodeJS.ProcessEnv = process.env): PortalEnv {
  // An empty value (`PUBLIC_URL=` in .env) means "use the default", as in the API's configuration.
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw Object.assign(new Error(`Invalid environment:\n  ${problems.join("\n  ")}`), { problems });
  }
  const env = result.data;
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "");
  const sandbox = ["true", "1", "yes"].includes(env.SANDBOX?.trim().toLowerCase() ?? "");
  const mode = (clientId: string | undefined) => (clientId ? "live" : sandbox ? "sandbox" : "off");
  return {
    ...env,
    publicUrl,
    apiBaseUrl: (env.API_URL || `http://127.0.0.1:${env.PORT}`).replace(/\/$/, ""),
    embeddedApi: !env.API_URL,
    sessionSecrets: env.SESSION_SECRET.split(",").map((secret) => secret.trim()),
    // Secure cookies whenever the portal is served over https; plain-http localhost keeps working.
    secureCookies: publicUrl.startsWith("https:"),
    sandbox,
    identity: { google: mode(env.GOOGLE_CLIENT_ID), apple: mode(env.APPLE_CLIENT_ID) },
  };
}

export function getEnv(): PortalEnv {
  cached ??= parsePortalEnv();
  return cached;
}

/** Express's "trust proxy" value from TRUST_PROXY: empty = trust nothing (use the socket address). */
export function trustProxySetting(value: string | undefined): boolean | number | string {
  if (!value || value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
