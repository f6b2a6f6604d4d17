import { setMaxListeners } from "node:events";
import type { AppLoadContext } from "@remix-run/node";
import type { MaybeOptionalInit } from "openapi-fetch";
import { type ApiAnswer, sendApiRequest } from "./api-transport.server";
import type { components, paths } from "./api-types.generated";
import { portalConfig } from "../config.server";
import { loginUrlFor } from "./safe-redirect";
import { destroySessionCookie } from "./session.server";
import { redirectWithFormError } from "./toast.server";
import { deviceKeyFor } from "./device-cookie.server";
import { languageOf } from "../i18n/i18n.server";

// The one client through which the portal reaches the product API: over HTTP, never by importing api/.
// Paths, bodies and answers are typed from the API's OpenAPI document (api-types.generated.ts, made by
// `npm run api:contract`), so a call that does not fit the API's contract does not compile.

/** The API's named schemas (User, Subscription, LoginRequest, ...), from its OpenAPI document. */
export type ApiSchemas = components["schemas"];

/** What went wrong, as the API names it (errors.code): what the portal branches on, never the message. */
export type ApiErrorCode = ApiSchemas["ErrorEnvelope"]["errors"]["code"];

/** The emailed code was refused: wrong, expired or used, or guessed wrong too often. */
export const CODE_REFUSED: ReadonlySet<ApiErrorCode> = new Set<ApiErrorCode>(["code_invalid", "code_expired", "too_many_attempts"]);

/** A refused value that the person can correct in its field (the message goes next to it, errors.fields says which). */
export const FIELD_REFUSED: ReadonlySet<ApiErrorCode> = new Set<ApiErrorCode>(["validation_failed", "wrong_password", ...CODE_REFUSED]);

/**
 * A call's result. A failure's `code` is null when the answer is not the API's error envelope (the API
 * is unreachable or answered something else); its `message` and `fieldErrors` are for the person.
 */
export type ApiResult<T> =
  | { ok: true; status: number; message: string; data: T }
  | { ok: false; status: number; code: ApiErrorCode | null; message: string; fieldErrors: Record<string, string[]> };

/** An error answer: the API's error envelope, or `error.message` as the spec also reads it. */
type ErrorBody = Partial<ApiSchemas["ErrorEnvelope"]> & { error?: { message?: unknown } };

/** The server's message as the spec reads it: errors.message, error.message or message. */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as ErrorBody;
  for (const candidate of [b.errors?.message, b.error?.message, b.message]) {
    if (typeof candidate === "string" && candidate.trim()) return candidate;
  }
  return undefined;
}

// A catalogue key: the 503 page and the forms that show it translate it (i18n/config.ts: a message is a key or a text).
export const SERVICE_UNAVAILABLE_MESSAGE = "error.unavailable.message";

/** A thrown 503 that the root error boundary renders as the "service unavailable" page. */
export function serviceUnavailable(): Response {
  return new Response(SERVICE_UNAVAILABLE_MESSAGE, { status: 503, statusText: "Service Unavailable" });
}

/**
 * Page loads (GET documents) check that the API answers before rendering, so that a page whose own
 * loader needs nothing from the API (/login, /get-code, ...) does not offer a form that cannot work:
 * it is the 503 page too, within API_TIMEOUT_MS. /api/health is a database ping; the check runs
 * beside the route's loaders, not before them. Data requests and form posts skip it: their calls
 * answer for themselves (a post shows the message next to its form).
 */
export async function requireApiReachable(request: Request): Promise<void> {
  if (!isPageLoad(request)) return;
  if (!(await apiHealth().answered)) throw serviceUnavailable();
}

function isPageLoad(request: Request): boolean {
  return request.method === "GET" && !new URL(request.url).pathname.endsWith(".data");
}

/**
 * Whether the API answered its health check, asked at most once a second per process: every page load
 * needs the answer, but a loopback call (and a database ping) per page would halve the throughput of
 * pages that need nothing else from the API. Every page load meanwhile shares the probe in flight, and
 * its answer is kept a second from when it came: with the API hanging, the pages loading at once all
 * see the failure when it comes (their own calls end with it, see `down`), and the pages of the next
 * second see it at once; a recovered API is seen within a second.
 */
const HEALTH_TTL_MS = 1_000;
interface HealthProbe {
  answered: Promise<boolean>;
  /** Aborted when the probe fails. */
  down: AbortSignal;
  settledAt?: number;
}
let health: HealthProbe | undefined;

/** The probe in flight or answered within the last second, if there is one. */
function currentHealth(): HealthProbe | undefined {
  if (health && (health.settledAt === undefined || Date.now() - health.settledAt < HEALTH_TTL_MS)) return health;
  return undefined;
}

function apiHealth(): HealthProbe {
  const current = currentHealth();
  if (current) return current;
  const env = portalConfig();
  const failed = new AbortController();
  // Every call of every page loading meanwhile listens to it.
  setMaxListeners(0, failed.signal);
  const probe: HealthProbe = {
    down: failed.signal,
    answered: fetch(`${env.apiBaseUrl}/api/health`, {
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(env.apiTimeoutMs),
    })
      .then(
        async (response) => {
          await response.body?.cancel();
          return response.ok;
        },
        () => false,
      )
      .then((ok) => {
        probe.settledAt = Date.now();
        if (!ok) failed.abort();
        return ok;
      }),
  };
  health = probe;
  return probe;
}

/**
 * One deadline for all the calls made on behalf of one request (its load context), however many
 * loaders make them and one after another: a page answers within API_TIMEOUT_MS of its first call,
 * not a timeout per call. An action's calls have their own, so that the page's loaders after a slow
 * post still get theirs (Remix asks those loaders with a GET).
 */
const deadlines = new WeakMap<object, { action?: number; loaders?: number }>();

function deadlineFor(request: Request, context: object, timeoutMs: number): number {
  let ofRequest = deadlines.get(context);
  if (!ofRequest) deadlines.set(context, (ofRequest = {}));
  const phase = request.method === "GET" || request.method === "HEAD" ? "loaders" : "action";
  ofRequest[phase] ??= performance.now() + timeoutMs;
  return ofRequest[phase];
}

type Method = "get" | "post" | "put" | "delete";
type PathsWithMethod<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, { responses: unknown }> ? P : never;
}[keyof paths];
/** A file download: the path's parameters, and the media type asked for. */
type FileCall = <P extends PathsWithMethod<"get">>(
  path: P,
  ...init: InitArgs<MaybeOptionalInit<paths[P], "get"> & { accept?: string }>
) => Promise<ApiAnswer | null>;
/** `data` of an operation's 200 answer. */
type OkData<Operation> = Operation extends {
  responses: { 200: { content: { "application/json": { data: infer D } } } };
}
  ? D
  : never;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The call's options (body, params): optional when nothing in them is required. */
type InitArgs<Init> = RequiredKeys<Init> extends never ? [init?: Init] : [init: Init];
type Call<M extends Method> = <P extends PathsWithMethod<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitArgs<Init>
) => Promise<ApiResult<OkData<paths[P][M]>>>;

/** The User-Agent client hints forwarded to the API (the first two are sent without being asked). */
const CLIENT_HINTS = ["Sec-CH-UA", "Sec-CH-UA-Platform", "Sec-CH-UA-Platform-Version", "Sec-CH-UA-Full-Version-List"] as const;

/** Headers of every call to the API on behalf of this request. */
function apiRequestHeaders(request: Request, context: Pick<AppLoadContext, "clientIp" | "requestId">, token?: string | null) {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  // The API keys rate limits and device rows on the browser, not on the portal.
  if (context.clientIp) headers["X-Forwarded-For"] = context.clientIp;
  // The API logs its lines under the page request's id, so one request can be followed through both.
  if (context.requestId) headers["X-Request-Id"] = context.requestId;
  const userAgent = request.headers.get("User-Agent");
  if (userAgent) headers["User-Agent"] = userAgent;
  // With its client hints (asked for by Accept-CH, server.ts), which the API's User-Agent parser reads:
  // only they tell Windows 11 from 10 and the real macOS and Android versions (issue 33).
  for (const name of CLIENT_HINTS) {
    const value = request.headers.get(name);
    if (value && value.length <= 512) headers[name] = value;
  }
  // This browser's device key: a sign-in from a browser new to the account is emailed (issue 22).
  headers["X-Device-Key"] = deviceKeyFor(request);
  // The page's language: the API's messages (and a new account's emails) come in it (issue 36).
  headers["Accept-Language"] = languageOf(request);
  return headers;
}

/** What a call may carry: path and query parameters, and a JSON body (as the OpenAPI types allow). */
type CallInit = {
  params?: { path?: Record<string, string | number>; query?: Record<string, string | number | boolean | undefined | null> };
  body?: unknown;
};

export function createApiClient(request: Request, context: Pick<AppLoadContext, "clientIp" | "requestId">, token?: string | null) {
  const env = portalConfig();
  const headers = apiRequestHeaders(request, context, token);

  function send(method: string, path: string, init: CallInit | undefined, accept?: string): Promise<ApiAnswer> {
    const body = init?.body === undefined ? undefined : Buffer.from(JSON.stringify(init.body));
    const sent = { ...headers, ...(accept ? { Accept: accept } : {}), ...(body ? { "Content-Type": "application/json" } : {}) };
    // A page load's calls end as soon as the health probe it shares has failed: the page is the 503 page then.
    const down = isPageLoad(request) ? currentHealth()?.down : undefined;
    return sendApiRequest(
      { method, url: `${env.apiBaseUrl}${expandPath(path, init?.params?.path)}${queryString(init?.params?.query)}`, headers: sent, body },
      { at: deadlineFor(request, context, env.apiTimeoutMs), signal: down },
    );
  }

  async function call<T>(method: string, path: string, init: CallInit | undefined): Promise<ApiResult<T>> {
    let answer: ApiAnswer;
    let parsed: unknown;
    try {
      answer = await send(method, path, init);
      parsed = parseAnswer(answer);
    } catch {
      // Unreachable, timed out, or a success that is not JSON (not the API answering).
      return { ok: false, status: 503, code: null, message: SERVICE_UNAVAILABLE_MESSAGE, fieldErrors: {} };
    }
    if (answer.status === 401 && token) {
      // The API no longer accepts this token (revoked, expired): sign out exactly as logout does.
      throw await signOutRedirect(request);
    }
    const ok = answer.status >= 200 && answer.status < 300;
    const envelope = parsed as { status?: unknown; message?: string; data?: T } | undefined;
    if (!ok || !envelope || typeof envelope !== "object" || envelope.status === false) {
      const errors = (parsed as ErrorBody | undefined)?.errors;
      const code = typeof errors?.code === "string" ? errors.code : null;
      return { ok: false, status: answer.status, code, message: messageOf(parsed) ?? "", fieldErrors: errors?.fields ?? {} };
    }
    return { ok: true, status: answer.status, message: envelope.message ?? "", data: envelope.data as T };
  }

  // The path, body and parameters are checked against the API's document by the types of Call;
  // call() turns the envelope into an ApiResult.
  return {
    get: ((path, ...init) => call("GET", path, init[0] as CallInit)) as Call<"get">,
    post: ((path, ...init) => call("POST", path, init[0] as CallInit)) as Call<"post">,
    put: ((path, ...init) => call("PUT", path, init[0] as CallInit)) as Call<"put">,
    delete: ((path, ...init) => call("DELETE", path, init[0] as CallInit)) as Call<"delete">,
    /**
     * A GET whose answer is a file, not an envelope (an invoice PDF): its status, headers and bytes, or
     * null when the API is unreachable or slow. A 401 signs out like every other call.
     */
    getFile: (async (path, ...init) => {
      const answer = await send("GET", path, init[0] as CallInit, (init[0] as { accept?: string } | undefined)?.accept).catch(() => null);
      if (answer?.status === 401 && token) throw await signOutRedirect(request);
      return answer;
    }) as FileCall,
  };
}

/** /api/cards/{id} with { id: 7 } -> /api/cards/7 */
function expandPath(path: string, values: Record<string, string | number> | undefined): string {
  if (!values) return path;
  return path.replace(/\{(\w+)\}/g, (whole, name: string) => (values[name] === undefined ? whole : encodeURIComponent(String(values[name]))));
}

function queryString(query: Record<string, string | number | boolean | undefined | null> | undefined): string {
  if (!query) return "";
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) search.append(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** A success's JSON (throws when it is not JSON); an error's JSON, or its text. */
function parseAnswer(answer: ApiAnswer): unknown {
  const text = answer.body.toString("utf8");
  if (answer.status >= 200 && answer.status < 300) return text ? JSON.parse(text) : undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A catalogue key (app/locales/<language>/auth.json): whatever shows it translates it (FormAlert, Toasts, or t where a script shows it). */
export const SESSION_ENDED_MESSAGE = "auth.session.ended";

/** Clears the session and sends the visitor to sign in, coming back to where they were. */
async function signOutRedirect(request: Request): Promise<Response> {
  const url = new URL(request.url);
  // A data request (single fetch, "/page.data") must send the user back to the page, not to the data URL.
  const pathname = url.pathname.replace(/\.data$/, "").replace(/^\/_root$/, "/") || "/";
  // The message stays above /login's sign-in form too (issue 21).
  return redirectWithFormError(loginUrlFor(`${pathname}${url.search}`), SESSION_ENDED_MESSAGE, { form: "sign-in" }, {
    headers: { "Set-Cookie": await destroySessionCookie(request) },
  });
}
