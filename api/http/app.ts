import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { type ApiConfig, SANDBOX_APPLE_CLIENT, SANDBOX_GOOGLE_CLIENT } from "../platform/config";
import { registerRoutes } from "./contract/route";
import type { ApiContext } from "./context";
import type { Logger } from "../platform/logger";
import { type Database, createDatabase, migrateToLatest } from "../platform/db";
import { upsertPlans } from "../payments/catalog";
import { type Clock, SharedOffsetClock, isMovable, isShared, systemClock } from "../platform/clock";
import { sendError } from "./envelope";
import { DomainError, type ErrorCode } from "../platform/errors";
import { MailService, createMailer } from "../platform/mailer";
import { LoginThrottle, RateLimiter } from "../platform/rate-limit";
import type { PaymentsDeps } from "../payments/card-payments";
import { type SandboxKit, type StripeSandbox, loadSandboxes } from "./sandboxes";
import { STRIPE_WEBHOOK_PATH } from "./routes/payments";
import { type CryptoDeps, createDueRenewalInvoices } from "../payments/bitpay/payments";
import { createTrustFunction } from "../platform/trust-proxy";
import { consoleStyle, createLogger, loggedPath, requestLogging, resumeRequestScope } from "../platform/logger";
import { apiRoutes, clockSandboxRoutes, mailSandboxRoutes } from "./routes";
import { cryptoRoutes } from "./routes/crypto";
import { PAYPAL_WEBHOOK_PATH, paypalRoutes } from "./routes/paypal";
import { type PayPalDeps, handlePayPalWebhook } from "../payments/paypal/payments";
import { type DunningDeps, renewalEvents, runDunningJobs } from "../billing/dunning";
import type { Gateways } from "../payments/gateway";
import type { PaidHook } from "../payments/paid";
import { connectPayPal, createBitPayGateway, createPayPalGateway, createStripeGateway } from "./gateways";
import { type NoticeDeps, runNoticeJobs, sendReceipt } from "../billing/notices";
import { deleteExpiredSecurityEvents } from "../identity/security-events";
import { createVpnSetup } from "../vpn/setup";
import { type PasswordHasher, productPasswords } from "../identity/passwords";

export type { ApiConfig } from "../platform/config";
export type { Database } from "../platform/db";
export type { Clock } from "../platform/clock";

export interface CreateApiOptions {
  config: ApiConfig;
  /** An open database; when given, createApi() still migrates and seeds it but close() leaves it open. */
  db?: Database;
  /** The product's business time (default: the system clock). */
  clock?: Clock;
  /** Where the API logs (default: JSON lines on stdout at LOG_LEVEL, named "api"). */
  logger?: Logger;
  /**
   * How passwords are hashed (default: argon2id at OWASP's minimum, api/identity/passwords.ts). Code only, for
   * the API's tests: no setting lowers the cost.
   */
  passwords?: PasswordHasher;
}

export interface Api {
  /**
   * Handles /api and /api/..., and while mail is a sandbox GET /dev/mailbox and /dev/mailbox.json;
   * any other path goes to next() untouched.
   */
  app: express.Express;
  db: Database;
  /** The card gateway (live Stripe or the sandbox) and what it records into: for tests and scripts. */
  payments: PaymentsDeps;
  /** Crypto invoices (BitPay live or the crypto sandbox; null while off): for tests and scripts. */
  crypto: CryptoDeps | null;
  /** PayPal (live or the PayPal stand-in; null while off): for tests and scripts. */
  paypal: PayPalDeps | null;
  /** Runs what has come due (what the JOBS_INTERVAL_SECONDS timer runs); each job is claimed once across instances. */
  runDueJobs(): Promise<void>;
  /** The Stripe sandbox while cards are in sandbox mode (its fault switch and advance()): for tests. */
  stripeSandbox?: StripeSandbox;
  /** Waits for mail still being sent, closes the SMTP transport, and closes the database when createApi() opened it. */
  close(): Promise<void>;
}

/** The paths the API answers (or passes on) when the portal embeds it: the API logs these requests itself. */
export const EMBEDDED_API_PATH = /^\/(api|dev)(\/|$)|^\/payments\/apple\/charge$/;

/** The body limit for JSON and form bodies. */
export const BODY_LIMIT = "64kb";

/**
 * Builds the product API: opens the database (unless given), migrates it to the latest version,
 * seeds it, and returns an Express app whose routes use full paths (/api/user/login, ...).
 * Mount it at the root of the portal's server, before any body parser: `app.use(api.app)`.
 */
export async function createApi(opts: CreateApiOptions): Promise<Api> {
  const { config } = opts;
  // In sandbox mode the business time is a test clock (/dev/clock moves it), kept in the database
  // (made once the sandboxes' tables exist, below); else the system clock.
  let clock: Clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? consoleStyle(createLogger(config.logLevel).child({ name: "api" }));
  const passwords = opts.passwords ?? productPasswords;
  const ownsDb = !opts.db;
  const db = opts.db ?? createDatabase(config.databaseUrl, config.postgresUser);
  // The stand-ins, loaded only in sandbox mode (docs/decisions/024): outside it their code is never read.
  let sandboxes: SandboxKit | undefined;

  try {
    await migrateToLatest(db);
    await upsertPlans(db);
    if (config.sandbox) {
      sandboxes = await loadSandboxes();
      await sandboxes.migrate(db);
      if (!opts.clock) {
        const shared = new SharedOffsetClock(sandboxes.clockStore(db));
        await shared.refresh();
        clock = shared;
      }
      await sandboxes.seed(db, clock, passwords);
    }
  } catch (error) {
    if (ownsDb) await db.destroy().catch(() => undefined);
    throw error;
  }

  const mailSandbox = config.integrations.mail === "sandbox";
  const mail = new MailService(createMailer(config, { db, clock }), { background: !mailSandbox, logger });
  // What every gateway reports to billing, built first (they need no gateway), then given to each gateway
  // whole when it is built (docs/decisions/049): a receipt after every paid payment, whichever path recorded
  // it (docs/decisions/029), and the rules of failed renewals (docs/decisions/027).
  const onPaid: PaidHook = (payment) => sendReceipt({ db, clock, logger, publicUrl: config.publicUrl, mail }, payment);
  const renewals = renewalEvents({ db, clock, publicUrl: config.publicUrl, mail, graceDays: config.dunningGraceDays });

  // Each gateway by its factory (./gateways.ts), built whole with what it reports to and the clients of the
  // others it names (a 5-year plan paid one way ends another gateway's renewal, decision 028): PayPal's client
  // first; its stand-in's webhooks go to the PayPal deps built on it below.
  const base = { config, db, clock, logger, sandboxes };
  const paypalConnection = await connectPayPal(base, (body, headers) => handlePayPalWebhook(paypalBuilt!.deps, body, headers));
  const stripe = await createStripeGateway(base, { onPaid, renewals, paypal: paypalConnection?.client ?? null });
  const paypalBuilt = paypalConnection ? createPayPalGateway(base, paypalConnection, { onPaid, renewals, gateway: stripe.deps.gateway }) : null;
  const bitpay = await createBitPayGateway(base, { onPaid, mail, gateway: stripe.deps.gateway, paypal: paypalConnection?.client ?? null });
  const payments = stripe.deps;
  const crypto = bitpay?.deps ?? null;
  const paypal = paypalBuilt?.deps ?? null;
  const stripeSandbox = stripe.sandbox;
  const bitpaySandbox = bitpay?.sandbox;
  const paypalSandbox = paypalBuilt?.sandbox;
  // Billing asks each subscription's own gateway (gatewayFor) through one interface.
  const gateways: Gateways = { stripe: stripe.gateway, paypal: paypalBuilt?.gateway ?? null, bitpay: bitpay?.gateway ?? null };
  const notices: NoticeDeps = { db, clock, logger, publicUrl: config.publicUrl, mail, gateways };
  const dunning: DunningDeps = { db, clock, publicUrl: config.publicUrl, mail, graceDays: config.dunningGraceDays, gateways };

  const limiter = new RateLimiter(db);
  const ctx: ApiContext = {
    config,
    db,
    clock,
    logger,
    limiter,
    loginThrottle: new LoginThrottle(limiter, config.login),
    mail,
    passwords,
    payments,
    crypto,
    paypal,
    gateways,
    notices,
    dunning,
    vpn: createVpnSetup(config, sandboxes?.vpn),
    async runDueJobs() {
      // Another instance may have moved the shared test clock.
      if (isShared(clock)) await clock.refresh();
      await stripeSandbox?.advance();
      await bitpaySandbox?.advance();
      await paypalSandbox?.advance();
      if (crypto) await createDueRenewalInvoices(crypto);
      await runDunningJobs(dunning);
      await runNoticeJobs(notices);
      // Security events are kept 90 days (issue 22).
      await deleteExpiredSecurityEvents(db, clock.now());
    },
  };

  // What comes due with time (crypto renewal invoices 3 days before expiry) also runs on a timer;
  // every job is claimed in the database, so several instances do each thing once.
  const jobs = setInterval(() => {
    ctx.runDueJobs().catch((error) => logger.error(`Scheduled jobs failed: ${error instanceof Error ? error.message : String(error)}`));
  }, config.jobsIntervalMs);
  jobs.unref();

  const app = express();
  app.disable("x-powered-by");
  // The paths are the document's exactly (api/openapi.json): /API/health or /api/health/ is a path it
  // does not list, so 404. Set before the first route (the router reads them once); the app's own
  // settings, so the same embedded in the portal and alone.
  app.enable("case sensitive routing");
  app.enable("strict routing");
  // Answers are no-store: an ETag (a SHA-1 of every body) would never be used.
  app.set("etag", false);
  // Loopback always (the portal calls over loopback and forwards the browser's address), plus
  // TRUST_PROXY. req.ip is the client address used for rate limits.
  const trust = createTrustFunction(config.trustProxy);
  app.set("trust proxy", trust);
  // One line per request that reaches the API first (embedded, the portal's own pages are logged by
  // the portal); the portal's X-Request-Id is kept, as is a trusted proxy's.
  app.use(
    requestLogging({
      logger,
      trustsPeer: (address) => trust(address, 0),
      quiet: (path) => path === "/api/health",
    }),
  );
  // Sandbox mode: each request of the API's (and the sandboxes' pages) starts from the shared test
  // clock's current offset (one row read), so another instance's advance is seen.
  if (isShared(clock)) {
    const shared = clock;
    app.use((req, _res, next) => {
      if (!EMBEDDED_API_PATH.test(req.path)) return next();
      shared.refresh().then(() => next(), next);
    });
  }

  app.use("/api", apiHeaders);
  // Stripe signs the exact bytes it sent: its webhook keeps the raw body (before the JSON parser).
  app.use(STRIPE_WEBHOOK_PATH, express.raw({ type: () => true, limit: "512kb" }));
  // PayPal verifies the exact text it sent: its webhook keeps the raw body too.
  app.use(PAYPAL_WEBHOOK_PATH, express.raw({ type: () => true, limit: "512kb" }));
  app.use(
    "/api",
    // strict: false, so that valid JSON that is not an object (null, "text") is a 422 from the
    // schema and only malformed JSON is a 400.
    // A string JSON can spell but Unicode cannot ("\ud800", half a surrogate pair) is malformed here: no
    // code after it (a URL built from it, a gateway's SDK) has to cope with text that cannot be encoded.
    express.json({ limit: BODY_LIMIT, strict: false, reviver: refuseIllFormedText }),
    express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 }),
    resumeRequestScope,
  );

  // An integration that is off has no routes: its paths answer 404 like any unknown path.
  const offRoutes: readonly unknown[] = [...(crypto ? [] : cryptoRoutes), ...(paypal ? [] : paypalRoutes)];
  registerRoutes(app, ctx, apiRoutes.filter((r) => !offRoutes.includes(r)));

  app.use("/api", notFound);
  app.use("/api", errorHandler(logger));
  app.use("/payments/apple/charge", errorHandler(logger)); // the Apple Pay charge at the spec's path (routes/wallets.ts): error envelopes too

  // The identity sandbox (an OpenID provider standing in for Google and Apple) exists only in sandbox
  // mode, for the providers without credentials; a live or off provider's sandbox paths go to next().
  const googleSandbox = config.integrations.google === "sandbox";
  const appleSandbox = config.integrations.apple === "sandbox";
  let identitySandbox: Awaited<ReturnType<SandboxKit["identity"]["create"]>> | undefined;
  if ((googleSandbox || appleSandbox) && sandboxes) {
    const { googlePath, applePath } = sandboxes.identity;
    identitySandbox = await sandboxes.identity.create({
      publicUrl: config.publicUrl,
      google: { ...SANDBOX_GOOGLE_CLIENT, redirectUris: [`${config.publicUrl}/auth/google/callback`] },
      apple: { ...SANDBOX_APPLE_CLIENT, redirectUris: [`${config.publicUrl}/auth/apple/callback`] },
    });
    const sandboxRouter = identitySandbox.router;
    app.use((req, res, next) => {
      if (!googleSandbox && req.path.startsWith(googlePath)) return next();
      if (!appleSandbox && req.path.startsWith(applePath)) return next();
      return sandboxRouter(req, res, next);
    });
  }

  // The sandboxes' browser pages (hosted checkout, invoices, the card tokenizer; the crypto invoice
  // page), wrapped so that they stay out of the API's own route table.
  if (stripeSandbox) app.use((req, res, next) => stripeSandbox!.browserRouter(req, res, next));
  if (bitpaySandbox) app.use((req, res, next) => bitpaySandbox!.browserRouter(req, res, next));
  if (paypalSandbox) app.use((req, res, next) => paypalSandbox!.browserRouter(req, res, next));

  // The test clock exists only in sandbox mode, with a clock it can move.
  if (config.sandbox && isMovable(clock)) {
    app.use("/dev/clock", express.urlencoded({ extended: false, limit: "1kb", parameterLimit: 10 }));
    registerRoutes(app, ctx, clockSandboxRoutes);
    app.use("/dev/clock", errorHandler(logger));
  }

  // The mail sandbox's pages exist only while mail is a sandbox. Other /dev paths go to next().
  if (mailSandbox) {
    registerRoutes(app, ctx, mailSandboxRoutes);
    app.use("/dev", errorHandler(logger));
  }

  return {
    app,
    db,
    payments,
    crypto,
    paypal,
    runDueJobs: () => ctx.runDueJobs(),
    stripeSandbox,
    async close() {
      await mail.close().catch(() => undefined);
      await identitySandbox?.close().catch(() => undefined);
      clearInterval(jobs);
      await stripe.close().catch(() => undefined);
      await bitpay?.close().catch(() => undefined);
      await paypalBuilt?.close().catch(() => undefined);
      if (ownsDb) await db.destroy();
    },
  };
}

const apiHeaders: RequestHandler = (_req, res, next) => {
  // Answers are personal or change with the data: never cache them, never sniff them.
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  next();
};

const notFound: RequestHandler = (_req, res) => {
  sendError(res, "not_found", "Not found.");
};

interface HttpishError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
}

/** Body-parser failures by their `type`. */
const BODY_ERRORS: Record<string, [ErrorCode, string]> = {
  "entity.parse.failed": ["malformed_body", "The request body is not valid JSON."],
  "entity.too.large": ["body_too_large", "The request body is too large."],
  "parameters.too.many": ["body_too_large", "The request body is too large."],
  "encoding.unsupported": ["unsupported_media_type", "The request body's encoding is not supported."],
  "charset.unsupported": ["unsupported_media_type", "The request body's character set is not supported."],
  "request.aborted": ["malformed_body", "The request was aborted."],
  "request.size.invalid": ["malformed_body", "The request body does not match its length."],
  "stream.encoding.set": ["server_error", "Something went wrong."],
};

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof DomainError) {
      for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
      sendError(res, err.code, err.message, err.fields, undefined, err.text);
      return;
    }
    const e = (err ?? {}) as HttpishError;
    const known = e.type ? BODY_ERRORS[e.type] : undefined;
    if (known && known[0] !== "server_error") {
      sendError(res, known[0], known[1]);
      return;
    }
    const status = e.status ?? e.statusCode;
    if (!known && typeof status === "number" && status >= 400 && status < 500 && e.expose !== false) {
      if (status === 404) sendError(res, "not_found", "Not found.");
      else sendError(res, "request_rejected", "The request could not be processed.", undefined, status);
      return;
    }
    // Logged without the request body, query string or headers (they may hold passwords or tokens).
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    logger.error(`API error on ${req.method} ${loggedPath(req)}: ${detail}`);
    sendError(res, "server_error", "Something went wrong.");
  };
}

/** With the u flag a surrogate pair is one code point: what this finds is half of one, alone. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** JSON.parse's reviver for the API's bodies: a lone surrogate makes the body malformed (400), not a 500 later. */
function refuseIllFormedText(key: string, value: unknown): unknown {
  if (LONE_SURROGATE.test(key) || (typeof value === "string" && LONE_SURROGATE.test(value))) throw new SyntaxError("The body holds text that is not valid Unicode.");
  return value;
}
