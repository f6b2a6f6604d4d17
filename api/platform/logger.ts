import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { format } from "node:util";
import type { Request, RequestHandler } from "express";
import pino from "pino";

/**
 * What the API logs through: console's shape, so a test can pass a collector. The servers pass pino
 * (api/platform/logger.ts: JSON lines), which also takes pino's `info({ fields }, "message")` form.
 */
export type Logger = Pick<Console, "info" | "warn" | "error"> & Partial<Pick<Console, "debug">>;

// Structured logs for the portal (server.ts) and the product API (api/http/app.ts, api/server.ts): one JSON
// line per event on stdout, one line per request with its request id, so an operator can follow a
// page request into the API calls it made, across instances behind a CDN and a load balancer.

/** pino's levels, lowest volume first; LOG_LEVEL picks one (default info). */
export const LOG_LEVELS = ["silent", "fatal", "error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The header that carries the request id from the CDN/LB to the portal, from the portal to the API, and back. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/** An incoming id is used only when short and made of characters that cannot forge a log line or a header. */
const VALID_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:=+/-]{0,63}$/;

/**
 * Paths that carry a secret in the path itself: the set-password and email-revert links' tokens, and the identity
 * sandbox's pending sign-in (its interaction id, like the provider's own, stands for the sign-in).
 */
const SECRET_PATHS: Array<[RegExp, string]> = [
  [/^\/generate-password\/.+/, "/generate-password/[redacted]"],
  [/^\/email-revert\/.+/, "/email-revert/[redacted]"],
  [/^(\/dev\/oidc\/[a-z]+\/(?:interaction|auth))\/[^/]+/, "$1/[redacted]"],
];

const requestScope = new AsyncLocalStorage<{ reqId: string }>();

/** The root logger: JSON lines on stdout (or `destination`), ISO times, level names. */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): pino.Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Anything logged while a request is handled (mail, errors, a library's console.error) carries its id.
      mixin: () => {
        const scope = requestScope.getStore();
        return scope ? { reqId: scope.reqId } : {};
      },
      // An error's own properties can hold request options or a provider's raw answer: keep only these.
      serializers: {
        err: (error: unknown) =>
          error instanceof Error
            ? { type: error.name, message: error.message, stack: error.stack, code: (error as { code?: unknown }).code }
            : { message: String(error) },
      },
    },
    destination,
  );
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !(value instanceof Error) && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The product's console-shaped Logger (api/context.ts) over pino: `logger.error("Mail failed:", error)`
 * becomes one JSON line (message formatted as console would, the error's stack under `err`), and
 * pino's own form `logger.info({ field }, "message")` keeps its fields.
 */
export function consoleStyle(log: pino.Logger): Required<Logger> {
  const method =
    (level: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]): void => {
      const [first, ...rest] = args;
      if (isFields(first) && typeof rest[0] === "string") {
        log[level](first, format(...rest));
        return;
      }
      const err = args.find((arg): arg is Error => arg instanceof Error);
      const message = format(...args.map((arg) => (arg instanceof Error ? arg.message : arg)));
      if (err) log[level]({ err }, message);
      else log[level](message);
    };
  return { debug: method("debug"), info: method("info"), warn: method("warn"), error: method("error") };
}

/**
 * Sends console.log/info/warn/error/debug through `log`, so that what libraries and the Remix app print
 * (errors in loaders, pool errors) is a JSON line too and the whole output stays parseable.
 */
export function routeConsoleTo(log: pino.Logger): void {
  const logger = consoleStyle(log);
  console.log = logger.info;
  console.info = logger.info;
  console.debug = logger.debug;
  console.warn = logger.warn;
  console.error = logger.error;
}

/** The request's path as logged: never its query (tokens travel in some), secrets in the path redacted. */
export function loggedPath(req: Pick<Request, "originalUrl" | "url">): string {
  const path = (req.originalUrl || req.url).split("?")[0] ?? "";
  return SECRET_PATHS.reduce((redacted, [pattern, replacement]) => redacted.replace(pattern, replacement), path);
}

/** The id of the request being handled (also in res.locals.requestId), or undefined outside a request. */
export function currentRequestId(): string | undefined {
  return requestScope.getStore()?.reqId;
}

const CLAIMED = Symbol("request logged");

export interface RequestLogOptions {
  logger: Logger;
  /**
   * Whether the peer that sent the request may set its id: Express's trust-proxy function for the
   * socket address (hop 0). A CDN or load balancer in TRUST_PROXY passes its X-Request-Id through;
   * anyone else gets a new id.
   */
  trustsPeer(address: string): boolean;
  /** Requests logged at debug only (health checks, fingerprinted assets), to keep probes out of the info log. */
  quiet?(path: string): boolean;
  /** Requests left to a logger further in (the embedded API logs its own paths). */
  leave?(req: Request): boolean;
}

/**
 * One JSON line per request (method, path, status, time, request id) when it ends, never its body,
 * query or headers (Authorization and Cookie carry tokens). It takes the incoming request id from a
 * trusted peer or makes one, echoes it as X-Request-Id, keeps it in res.locals.requestId, and runs the
 * rest of the request in its scope. The first of these middlewares a request meets logs it.
 */
export function requestLogging(opts: RequestLogOptions): RequestHandler {
  return (req, res, next) => {
    if ((req as ClaimableRequest)[CLAIMED] || opts.leave?.(req)) return next();
    const reqId = logRequest(req, res, opts);
    res.locals.requestId = reqId;
    requestScope.run({ reqId }, next);
  };
}

type ClaimableRequest = IncomingMessage & { originalUrl?: string; [CLAIMED]?: true };

/**
 * The request log's part that needs no Express: claims the request, takes or makes its id, echoes it as
 * X-Request-Id and logs the line when the answer ends. Returns the id. server.ts calls it directly for the
 * answers it gives before Express (the micro-cache's hits).
 */
export function logRequest(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, opts: Pick<RequestLogOptions, "logger" | "trustsPeer" | "quiet">): string {
  (req as ClaimableRequest)[CLAIMED] = true;
  const incoming = req.headers[REQUEST_ID_HEADER_LOWER];
  const trusted = typeof incoming === "string" && VALID_REQUEST_ID.test(incoming) && opts.trustsPeer(req.socket.remoteAddress ?? "");
  const reqId = trusted ? incoming : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, reqId);

  const started = process.hrtime.bigint();
  res.once("close", () => {
    const path = loggedPath({ originalUrl: req.originalUrl ?? "", url: req.url ?? "" });
    const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    // A request the client gave up on before the answer was sent is logged too, as aborted.
    const aborted = !res.writableFinished;
    const fields = { reqId, method: req.method, path, status: res.statusCode, ms, ...(aborted ? { aborted } : {}) };
    const message = `${req.method} ${path} ${aborted ? "aborted" : res.statusCode} ${ms}ms`;
    if (opts.quiet?.(path) && !aborted && res.statusCode < 500) opts.logger.debug?.(fields, message);
    else opts.logger.info(fields, message);
  });
  return reqId;
}

const REQUEST_ID_HEADER_LOWER = REQUEST_ID_HEADER.toLowerCase();

/**
 * Re-enters the request's scope: body parsers call next() from the socket's stream events, outside it.
 * Mount right after them.
 */
export const resumeRequestScope: RequestHandler = (_req, res, next) => {
  const reqId = res.locals.requestId as string | undefined;
  if (reqId && currentRequestId() !== reqId) requestScope.run({ reqId }, next);
  else next();
};
