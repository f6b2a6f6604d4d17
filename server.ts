import crypto from "node:crypto";
import fs from "node:fs";
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import { broadcastDevReady, type ServerBuild } from "@remix-run/node";
import compression from "compression";
import express, { type NextFunction, type Request, type Response } from "express";
import helmet from "helmet";
import { EMBEDDED_API_PATH, createApi } from "./api/http/app";
import { ConfigError, integrationsLine } from "./api/platform/config";
import { consoleStyle, createLogger, logRequest, type RequestLogOptions, requestLogging, routeConsoleTo } from "./api/platform/logger";
import { exitGracefullyOnSignals } from "./api/platform/shutdown";
import type { PortalConfig } from "./app/config.server";
import { cachePolicy } from "./server/cache-policy";
import { loadConfig } from "./server/config";
import { publicPageCache } from "./server/public-page-cache";

// Paths come from this file's place (server.ts at the root, or its bundle in build/), not from the
// working directory, so `node /srv/portal/build/server.js` works from anywhere.
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.basename(HERE) === "build" ? path.dirname(HERE) : HERE;
const BUILD_PATH = path.join(ROOT, "build/server/index.js");
const MAX_PORTAL_BODY_BYTES = 1024 * 1024;
/** The embedded API's JSON paths (not its HTML sandbox pages under /dev). */
const EMBEDDED_JSON_API_PATH = /^\/api(\/|$)|^\/payments\/apple\/charge$/;

// Everything this process prints is a JSON line (the API's lines are named "api", the rest "portal");
// what the app and libraries print with console.* included. LOG_LEVEL applies once it is read.
const rootLog = createLogger("info");
const portalLog = rootLog.child({ name: "portal" });
routeConsoleTo(portalLog);

// The one place this process reads its environment (docs/decisions/025): everything below gets its part.
const { api: apiConfig, portal, server: serverConfig } = loadConfigurationOrExit();
// `npm run dev` (scripts/dev.mjs) starts this file with --dev: only then is there a dev server to reload builds from.
const isDev = serverConfig.dev;
// A child keeps the level it was made with: set both (the API's child is made after this).
rootLog.level = portalLog.level = apiConfig.logLevel;

const app = express();
app.disable("x-powered-by");
app.set("trust proxy", serverConfig.trustProxy);

let apiHandle: Awaited<ReturnType<typeof createApi>> | undefined;
if (portal.embeddedApi) {
  apiHandle = await createApi({ config: apiConfig, logger: consoleStyle(rootLog.child({ name: "api" })) });
  // The JSON API skips the page middleware below (CSP nonce, helmet, compression, the portal's request
  // log): it sets its own headers and logs its own lines, and every page's loaders call it over loopback.
  const jsonApi = apiHandle.app;
  app.use((req, res, next) => (EMBEDDED_JSON_API_PATH.test(req.path) ? jsonApi(req, res, next) : next()));
}

// Security headers and an enforced CSP whose script nonce is new on every request.
app.use((_req, res, next) => {
  res.locals.cspNonce = newNonce();
  next();
});
app.use(
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      // Each directive is one list per request, every source once: a source allowed only on some pages or
      // with a live integration is left out elsewhere (not replaced by a second 'self').
      directives: {
        "default-src": ["'self'"],
        "script-src": [
          sources(
            "'self'",
            (_req, res) => (res.locals.cspNonce ? `'nonce-${res.locals.cspNonce}'` : undefined),
            stripeOn("https://js.stripe.com"),
            paypalOn("https://www.paypal.com"),
          ),
        ],
        "style-src": ["'self'"],
        "img-src": [sources("'self'", "data:", stripeOn("https://*.stripe.com"), paypalOn("https://www.paypalobjects.com"))],
        "font-src": ["'self'"],
        "frame-src": [sources("'self'", stripeOn("https://js.stripe.com"), stripeOn("https://hooks.stripe.com"), paypalOn("https://www.paypal.com"), paypalOn())],
        "connect-src": [sources("'self'", ...(isDev ? ["ws:"] : []), stripeOn("https://api.stripe.com"), paypalOn("https://www.paypal.com"), paypalOn())],
        // A form post that redirects to a live identity provider (or Stripe's hosted payment page, or
        // PayPal's approval page) is checked against form-action too.
        "form-action": [sources("'self'", ...serverConfig.liveIdentityOrigins, stripeOn("https://checkout.stripe.com"), bitpayOn(), paypalOn())],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
        ...(portal.secureCookies ? { "upgrade-insecure-requests": [] } : {}),
      },
    },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: "same-origin" },
    strictTransportSecurity: portal.secureCookies ? { maxAge: 31536000, includeSubDomains: true } : false,
  }),
);
// Ask browsers for the User-Agent client hints the API's parser needs to name a device truthfully
// ('Windows 11', the real macOS and Android versions; issue 33). They come with the next requests, which
// the loaders forward to the API. No Vary: only private (no-store) answers use them; a shared cache's
// public pages never do.
app.use((_req, res, next) => {
  res.setHeader("Accept-CH", "Sec-CH-UA-Platform-Version, Sec-CH-UA-Full-Version-List");
  next();
});
// The public pages' micro-cache compresses what it answers itself (once a page), so its requests skip the middleware.
const pageCache = publicPageCache({ paths: ["/pricing"] });
const compress = compression();
app.use((req, res, next) => (pageCache.handles(req) ? next() : compress(req, res, next)));

// Request log: one JSON line per request with its id (a trusted proxy's X-Request-Id, or a new one),
// which the loaders pass on to the API. Health checks and fingerprinted assets only at debug level.
// The embedded API logs the requests on its own paths, with the same id when the portal made them.
const trustsProxy = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
const pageLog: RequestLogOptions = {
  logger: consoleStyle(portalLog),
  trustsPeer: (address) => trustsProxy(address, 0),
  quiet: (path) => path === "/healthz" || path.startsWith("/build/"),
  leave: (req) => portal.embeddedApi && EMBEDDED_API_PATH.test(req.path),
};
app.use(requestLogging(pageLog));

// Fingerprinted build assets never change; everything else in public/ may.
app.use("/build", express.static(path.join(ROOT, "public/build"), { immutable: true, maxAge: "1y", index: false }));
// Other public files (favicon.ico, robots.txt) all have an extension; page paths never stat the disk, nor
// do a page's data requests (single fetch's `/page.data`, every client-side navigation): no file is one.
const publicFiles = express.static(path.join(ROOT, "public"), { maxAge: "1h", index: false });
const isPublicFilePath = (pathname: string) => path.extname(pathname) !== "" && !pathname.endsWith(".data");
app.use((req, res, next) => (isPublicFilePath(req.path) ? publicFiles(req, res, next) : next()));
// Apple Pay's domain verification file has no extension; served when public/ has it (README, Wallets).
app.get("/.well-known/apple-developer-merchantid-domain-association", publicFiles);
// Anonymous /pricing: a few seconds' in-process cache with a hash-based CSP instead of a shared nonce;
// ahead of the API's router, so a cached page costs little more than its security headers and log line.
app.use(pageCache);

// Cross-site posts are refused before the sandboxes' pages too: /dev/clock moves everyone's time.
app.use(sameOriginPosts);

// The sandboxes' pages and /dev (HTML, under the CSP above) go to the embedded API here.
if (apiHandle) app.use(apiHandle.app);

app.get("/healthz", async (_req, res) => {
  // This instance's health now: never an answer a CDN or proxy in front keeps (cachePolicy comes later).
  res.set("Cache-Control", "no-store");
  try {
    const response = await fetch(`${portal.apiBaseUrl}/api/health`, { signal: AbortSignal.timeout(2_000) });
    res.status(response.ok ? 200 : 503).json({ status: response.ok ? "ok" : "unavailable" });
  } catch {
    res.status(503).json({ status: "unavailable" });
  }
});

// Paths that verify their posts their own way: the Apple callback (the provider's form_post, checked
// against its state cookie). Exact paths, compared with the path Remix routes (see routedPath). The
// bearer-token API (/api, webhooks included, and /payments/apple/charge) is answered above, before
// this check; the sandboxes' pages under /dev are not exempt (their forms post from this origin).
const CROSS_SITE_POST_EXEMPT = new Set(["/auth/apple/callback"]);

/** Refuses cookie-authenticated posts from other origins, on top of SameSite=Lax cookies (DESIGN §4). */
function sameOriginPosts(req: Request, res: Response, next: NextFunction) {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
  if (CROSS_SITE_POST_EXEMPT.has(routedPath(req) ?? "")) return next();
  const origin = req.get("Origin");
  const fetchSite = req.get("Sec-Fetch-Site");
  const ownOrigins = new Set([`${req.protocol}://${req.get("Host")}`, new URL(portal.publicUrl).origin]);
  // Our origin, and addressed to the host it names: Remix refuses an action whose Origin is not the
  // Host (or X-Forwarded-Host) it was sent to by throwing (a 500), so such a post is refused here.
  const crossSite = origin
    ? !ownOrigins.has(origin) || hostOf(origin) !== addressedHost(req)
    : fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none";
  if (crossSite) {
    res.status(403).type("text/plain").send("This request came from another site and was refused.");
    return;
  }
  next();
}

/** The request's URL as @remix-run/express builds it (host, port, then the request target), if it can. */
function remixUrl(req: Request): URL | undefined {
  const portOf = (host: string | undefined) => Number.parseInt(host?.split(":")[1] ?? "", 10);
  const port = [portOf(req.get("X-Forwarded-Host")), portOf(req.get("Host"))].find(Number.isSafeInteger);
  try {
    const url = new URL(`${req.protocol}://${req.hostname}${port ? `:${port}` : ""}${req.originalUrl}`);
    // A Fetch Request refuses a URL with credentials ("Host: a@b").
    return url.username || url.password ? undefined : url;
  } catch {
    return undefined;
  }
}

/**
 * The path Remix routes for this request: its URL's path (dot segments resolved), each segment
 * decoded as React Router decodes it. Undefined for a URL Remix cannot build.
 */
function routedPath(req: Request): string | undefined {
  try {
    return remixUrl(req)
      ?.pathname.split("/")
      .map((segment) => decodeURIComponent(segment).replace(/\//g, "%2F"))
      .join("/");
  } catch {
    return undefined;
  }
}

/** The host a request says it was sent to, as Remix's action check reads it (X-Forwarded-Host first). */
function addressedHost(req: Request): string | undefined {
  return req.get("X-Forwarded-Host")?.split(",")[0]?.trim() || req.get("Host");
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

// Remix reads bodies itself; refuse oversized ones before they are buffered.
app.use((req, res, next) => {
  if (req.method === "GET" || req.method === "HEAD") return next();
  const length = req.get("Content-Length");
  if (length === undefined && req.get("Transfer-Encoding")) {
    // Browsers always send a length with a form; a chunked body (scripts, some proxies) is refused.
    refuseChunkedBody(req, res);
    return;
  }
  if (Number(length ?? 0) > MAX_PORTAL_BODY_BYTES) {
    res.status(413).type("text/plain").send("The request body is too large.");
    return;
  }
  next();
});

// Pages rendered at once. Beyond it a page request waits its turn (FIFO): the pages in progress then
// get their API calls (this process, over loopback) answered promptly, instead of every page's calls
// queuing behind a crowd until they pass API_TIMEOUT_MS and the page answers 503 (`npm run load`).
const MAX_PAGES_IN_PROGRESS = 32;
let pagesInProgress = 0;
const pagesWaiting: Array<() => void> = [];
function pageSlot(req: Request, res: Response, next: NextFunction) {
  const start = () => {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      pagesInProgress--;
      pagesWaiting.shift()?.();
    };
    pagesInProgress++;
    // 'close' follows 'finish', and also comes when the client goes away first.
    res.once("close", release);
    if (req.socket.destroyed) release();
    else next();
  };
  if (pagesInProgress < MAX_PAGES_IN_PROGRESS) start();
  else pagesWaiting.push(start);
}

// Under `npm run dev`, `tsx watch` restarts this process whenever remix rebuilds build/.
const build = (await import(pathToFileURL(BUILD_PATH).href)) as ServerBuild;
// The build holds its own copy of app/config.server: its entry module hands the configuration over.
(build.entry.module as unknown as { setPortalConfig(config: PortalConfig): void }).setPortalConfig(portal);
// Every answer of the app is private, no-store and varies on Cookie unless public and anonymous.
app.use(cachePolicy);
// A request Remix cannot make a URL of (an absolute-form target `GET http://…`, a Host such as "a b")
// would make its adapter throw: a 500. It is the client's mistake.
app.use((req, res, next) => (remixUrl(req) ? next() : res.status(400).type("text/plain").send("The request's URL or Host is not valid.")));
// The pages fetch their data by single fetch (<path>.data). Remix still answers the older ?_data=<route id>
// request, making a loader's plain value the init of a Response (a `status` key became the HTTP status, a
// null loader a TypeError: 500s). No page of ours sends one: it is refused, for every route at once.
app.use((req, res, next) =>
  remixUrl(req)?.searchParams.has("_data")
    ? res.status(400).type("text/plain").send("The _data parameter is not supported: a page's data is at its path with .data added.")
    : next(),
);
const getLoadContext = (req: Request, res: Response) => ({
  cspNonce: res.locals.cspNonce as string,
  clientIp: req.ip ?? req.socket.remoteAddress ?? "",
  requestId: res.locals.requestId as string,
});
app.all("*", pageSlot, createRequestHandler({ build, mode: build.mode, getLoadContext }));

// A micro-cache hit is answered here, before Express: its kept headers are the ones the middleware above gave
// the render (security headers, hashed CSP, Cache-Control, Vary), so only its request id and log line are new.
// Express's routing through that middleware cost more CPU than the rest of a hit (issue 31: /pricing's p99 at
// 50 connections on a busy machine). Everything else, including a copy to refresh, goes through the app.
const server: Server = http.createServer((req, res) => {
  const hit = pageCache.freshHit(req);
  if (!hit) return void app(req, res);
  logRequest(req, res, pageLog);
  pageCache.sendHit(req, res, hit);
});
server.listen(serverConfig.port, serverConfig.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : serverConfig.port;
  console.info(`Portal listening on http://localhost:${port} (API ${portal.embeddedApi ? "embedded at /api" : `at ${portal.apiBaseUrl}`})`);
  if (isDev) void broadcastDevReady(build);
  // Which mode, and what runs how: sandbox mode says so at every start (and on every page).
  console.info(integrationsLine(apiConfig));
});

exitGracefullyOnSignals(server, async () => {
  await apiHandle?.close();
});

/**
 * 411 for a chunked body, 413 when it passes the body limit: answered once the body has been read and
 * discarded, so the client reads the answer instead of a reset socket. Past 4 times the limit we stop
 * reading, answer 413 and close the connection.
 */
function refuseChunkedBody(req: Request, res: Response) {
  let received = 0;
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    if (received > MAX_PORTAL_BODY_BYTES) res.status(413).type("text/plain").send("The request body is too large.");
    else res.status(411).type("text/plain").send("A Content-Length header is required.");
  };
  req.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received <= 4 * MAX_PORTAL_BODY_BYTES || answered) return;
    req.pause();
    res.set("Connection", "close");
    answer();
    res.once("finish", () => req.destroy());
  });
  req.once("end", answer);
  req.once("error", answer);
}

/** The pages that load Stripe.js or go to Stripe's hosted pages: checkout, /demo, and billing's Add card. */
const CHECKOUT_PATH = /^\/((subscription\/)?payment\/\d+|demo|billing)(\.data)?$/;

/** Pages whose forms go on to BitPay's invoice page (the checkout's crypto panel, the due invoice). */
const CRYPTO_PAGE = /^\/((subscription\/)?payment\/\d+|subscription\/bitpay-pay-due-invoice\/[^/]+)(\.data)?$/;

/** A CSP source for this request, or none. */
type CspSource = string | ((req: Request, res: Response) => string | undefined);

const NONCE_BYTES = 16;
const NONCES_PER_DRAW = 256;
let nonceBytes = Buffer.alloc(0);
let nonceAt = 0;

/**
 * 16 bytes from the CSPRNG, base64, for a request's CSP nonce. They are drawn 256 nonces at a time: one
 * call into the CSPRNG for 256 requests instead of one each (a few per cent of a cached page's CPU). Each
 * nonce is its own 16 bytes, used once, as unpredictable as a draw of its own.
 */
function newNonce(): string {
  if (nonceAt >= nonceBytes.length) {
    nonceBytes = crypto.randomBytes(NONCE_BYTES * NONCES_PER_DRAW);
    nonceAt = 0;
  }
  const nonce = nonceBytes.toString("base64", nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

/** One directive's sources for each request, each once, in order (helmet calls it per response). */
function sources(...list: CspSource[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const present = list.map((source) => (typeof source === "string" ? source : source(req as Request, res as Response)));
    return [...new Set(present.filter((source): source is string => Boolean(source)))].join(" ");
  };
}

/** BitPay's origin in form-action on the pages that redirect there, with live BitPay only. */
function bitpayOn(): CspSource {
  return (req) => (serverConfig.bitpayOrigin && CRYPTO_PAGE.test(req.path) ? serverConfig.bitpayOrigin : undefined);
}

/**
 * A CSP source allowed only on the checkout with live PayPal: its approval page (PayPal's web origin, the
 * default) for the 'Continue to PayPal' redirect, and what PayPal's buttons load (their script always comes
 * from www.paypal.com).
 */
function paypalOn(source?: string): CspSource {
  return (req) => {
    const origin = serverConfig.paypalOrigin;
    return origin && /^\/(subscription\/)?payment\/\d+(\.data)?$/.test(req.path) ? (source ?? origin) : undefined;
  };
}

/** A CSP source allowed only on the checkout, /demo and billing, with live Stripe. */
function stripeOn(source: string): CspSource {
  return (req) => (serverConfig.stripePublishableKey && CHECKOUT_PATH.test(req.path) ? source : undefined);
}

/** Validates the API's and the portal's environment together, and stops with every problem listed once. */
function loadConfigurationOrExit() {
  try {
    return loadConfig(process.env, { generatedSessionSecret, devServer: process.argv.slice(2).includes("--dev") });
  } catch (error) {
    const problems = error instanceof ConfigError ? error.problems : [(error as Error).message];
    console.error(
      `The server cannot start. Invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}\n` +
        "See .env.example for every variable and its default, or set SANDBOX=true to run on stand-ins.",
    );
    process.exit(1);
  }
}

/**
 * A fresh clone has no SESSION_SECRET. In sandbox mode we make one and keep it in data/ so sessions
 * survive restarts; outside it the start is refused without one (the configuration says so).
 */
function generatedSessionSecret(): string {
  const file = path.resolve("data/session-secret");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(32).toString("hex"), { mode: 0o600 });
  console.warn("SESSION_SECRET is not set: using a generated one stored in data/session-secret.");
  return fs.readFileSync(file, "utf8").trim();
}
