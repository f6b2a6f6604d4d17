/*
 * @paypal/paypal-server-sdk hard-codes its base URL (api-m.paypal.com / api-m.sandbox.paypal.com). In
 * sandbox mode the product's PayPal code must reach the stand-in instead, through the same SDK calls:
 * this gives the SDK's `unstable_httpClientOptions` (axios overrides) an adapter that sends each
 * request, as the SDK built it, to the same path and query on `baseUrl`. Live code never uses it.
 *
 *   new Client({ environment: Environment.Sandbox, ..., unstable_httpClientOptions: paypalSdkHttpOptions(base) })
 *
 * A fetch adapter rather than axios' own: axios is not the product's dependency (only the SDK's), and
 * the SDK accepts every status (validateStatus) and reads the body as text, so little is needed.
 */

/** The part of axios' request config that the SDK's requests use. */
interface AdapterConfig {
  url?: string;
  method?: string;
  headers?: { toJSON?(): Record<string, unknown> } & Record<string, unknown>;
  data?: unknown;
  auth?: { username: string; password?: string };
  timeout?: number;
}

function headersOf(config: AdapterConfig): Headers {
  const raw = typeof config.headers?.toJSON === "function" ? config.headers.toJSON() : (config.headers ?? {});
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined && value !== null && typeof value !== "function") headers.set(name, String(value));
  }
  if (config.auth) {
    headers.set("authorization", `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password ?? ""}`).toString("base64")}`);
  }
  return headers;
}

/** Axios overrides for the PayPal SDK: every request goes to `baseUrl` (e.g. `http://127.0.0.1:4567`). */
export function paypalSdkHttpOptions(baseUrl: string) {
  const base = new URL(baseUrl);
  return {
    async adapter(config: AdapterConfig) {
      const original = new URL(config.url ?? "/", base);
      const target = new URL(`${original.pathname}${original.search}`, base);
      const method = (config.method ?? "get").toUpperCase();
      const body = config.data === undefined || config.data === null ? undefined : (config.data as string | URLSearchParams);
      const response = await fetch(target, {
        method,
        headers: headersOf(config),
        body: method === "GET" || method === "HEAD" ? undefined : body,
        signal: config.timeout ? AbortSignal.timeout(config.timeout) : undefined,
      });
      return {
        data: await response.text(),
        status: response.status,
        statusText: response.statusText,
        headers: Object.fromEntries(response.headers),
        config,
        request: {},
      };
    },
  };
}
