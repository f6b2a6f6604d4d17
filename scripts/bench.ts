// `npm run bench`: client JS per route (gzip, from the build) and server throughput and p99 latency
// for /login, the signed-in home and the framework floor, measured in one run on loopback.
// Figures are machine-dependent; the ratios are what to compare between changes.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "@playwright/test";
import autocannon from "autocannon";
import { measureClientJs } from "./js-size.mjs";

const BUDGET_LOGIN_JS_OVER_FLOOR = 15 * 1024;
const BUDGET_LOGIN_RPS_RATIO = 0.7;
const BUDGET_PRICING_JS_OVER_FLOOR = 5 * 1024;
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PORT = Number(process.env.BENCH_PORT ?? 3300);
const BASE = `http://127.0.0.1:${PORT}`;

type Measured = { rps: number; p50: number; p99: number; errors: number; non2xx: number };

async function main() {
  // 1. Client JavaScript.
  const { routes, total } = measureClientJs() as { routes: string[]; total: (id: string) => number };
  const floorJs = total("routes/$");
  console.log(`\nClient JS per route (gzip; floor = root layout on the not-found page: ${kb(floorJs)})`);
  for (const id of [...routes].sort()) {
    if (id === "root") continue;
    console.log(`  ${id.padEnd(30)} ${kb(total(id)).padStart(9)}  +${kb(total(id) - floorJs)} over floor`);
  }
  const loginJsOver = total("routes/login") - floorJs;

  // 2. Server: the built server on a fresh database, sandbox mode.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-bench-"));
  const server = spawn(process.execPath, ["build/server.js"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(PORT),
      DATABASE_URL: path.join(dataDir, "bench.sqlite"),
      PUBLIC_URL: BASE,
      SESSION_SECRET: "bench-session-secret-0123456789abcdef012345",
      LOGIN_MAX_FAILURES_PER_IP: "100000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    await waitForHealth();
    const cookie = await signInDemo();
    // 2a. What a visitor's browser downloads: every script until the network is idle, lazy chunks included.
    const pages: Array<[string, string, string | null]> = [
      ["floor (not-found page)", "/bench-floor", null],
      ["/login", "/login", null],
      ["/pricing (anonymous)", "/pricing", null],
      ["/subscription/payment/6 (visitor)", "/subscription/payment/6", null],
      ["/subscription/payment/6 (signed in)", "/subscription/payment/6", cookie],
      ["/ (signed in)", "/", cookie],
    ];
    const downloaded = await browserScripts(pages);
    const floorLoaded = downloaded["floor (not-found page)"]!.bytes;
    console.log(`\nScripts a browser downloads until the network is idle (gzip, lazy chunks included; floor ${kb(floorLoaded)})`);
    for (const [name, { bytes, files }] of Object.entries(downloaded)) {
      console.log(`  ${name.padEnd(38)} ${kb(bytes).padStart(9)}  +${kb(bytes - floorLoaded)} over floor  (${files.length} files)`);
    }
    // The card form (and Stripe.js, live) belong to the signed-in checkout's Card panel only.
    const cardFormOutsideCheckout = Object.entries(downloaded).filter(
      ([name, { files }]) => name !== "/subscription/payment/6 (signed in)" && files.some((file) => /card-form|stripe/i.test(file)),
    );
    const cardFormOnCheckout = downloaded["/subscription/payment/6 (signed in)"]!.files.some((file) => /card-form/.test(file));
    const pricingOver = downloaded["/pricing (anonymous)"]!.bytes - floorLoaded;

    // 2b. Cache headers of the public pricing page and of the checkout.
    const pricingCache = (await fetch(`${BASE}/pricing`)).headers.get("cache-control") ?? "";
    const pricingSignedInCache = (await fetch(`${BASE}/pricing`, { headers: { cookie } })).headers.get("cache-control") ?? "";
    const checkoutCache = (await fetch(`${BASE}/subscription/payment/6`)).headers.get("cache-control") ?? "";
    console.log(`\nCache-Control: /pricing anonymous "${pricingCache}", signed in "${pricingSignedInCache}"; checkout "${checkoutCache}"`);

    const targets: Array<[string, string, Record<string, string>]> = [
      ["floor (not-found page)", "/bench-floor", {}],
      ["/login", "/login", {}],
      ["/pricing (anonymous)", "/pricing", {}],
      ["/subscription/payment/6", "/subscription/payment/6", {}],
      ["/ (signed in)", "/", { cookie }],
    ];
    const results: Record<string, Measured> = {};
    for (const [name, url, headers] of targets) {
      await run(url, headers, 2); // warm-up
      results[name] = await run(url, headers, DURATION);
    }
    const floor = results["floor (not-found page)"]!;
    console.log(`\nServer (${CONNECTIONS} connections, ${DURATION} s each, autocannon on loopback, ${os.cpus().length} cores)`);
    console.log(`  ${"route".padEnd(24)} ${"req/s".padStart(8)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"vs floor".padStart(9)}`);
    for (const [name, m] of Object.entries(results)) {
      const ratio = `${((m.rps / floor.rps) * 100).toFixed(0)} %`;
      console.log(`  ${name.padEnd(24)} ${m.rps.toFixed(0).padStart(8)} ${m.p50.toFixed(1).padStart(7)} ${m.p99.toFixed(1).padStart(7)} ${ratio.padStart(9)}${m.errors ? `  (${m.errors} errors)` : ""}`);
    }
    const loginRatio = results["/login"]!.rps / floor.rps;
    const checks = [
      [`/login JS over floor ${kb(loginJsOver)} <= ${kb(BUDGET_LOGIN_JS_OVER_FLOOR)}`, loginJsOver <= BUDGET_LOGIN_JS_OVER_FLOOR],
      [`/login throughput ${(loginRatio * 100).toFixed(0)} % of floor >= ${BUDGET_LOGIN_RPS_RATIO * 100} %`, loginRatio >= BUDGET_LOGIN_RPS_RATIO],
      [`signed-in home answered without errors`, results["/ (signed in)"]!.errors === 0 && results["/ (signed in)"]!.non2xx === 0],
      [`/pricing scripts over floor ${kb(pricingOver)} <= ${kb(BUDGET_PRICING_JS_OVER_FLOOR)}`, pricingOver <= BUDGET_PRICING_JS_OVER_FLOOR],
      [`the card form's code loads on the signed-in checkout only`, cardFormOnCheckout && cardFormOutsideCheckout.length === 0],
      [`/pricing is CDN-cacheable for anonymous visitors (public, s-maxage)`, /public/.test(pricingCache) && /s-maxage=\d+/.test(pricingCache)],
      [`/pricing signed in and the checkout are private, no-store`, pricingSignedInCache === "private, no-store" && checkoutCache === "private, no-store"],
      [`/pricing and the checkout answered without errors`, ["/pricing (anonymous)", "/subscription/payment/6"].every((n) => results[n]!.errors === 0 && results[n]!.non2xx === 0)],
    ] as const;
    console.log("\nBudgets");
    for (const [label, ok] of checks) console.log(`  ${ok ? "PASS" : "FAIL"}  ${label}`);
    process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    server.kill("SIGTERM");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function kb(bytes: number) {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

/** Every script each page makes the browser download (until the network is idle), with its gzip size from the build. */
async function browserScripts(pages: Array<[string, string, string | null]>) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
  });
  const gzipped = (url: string) => {
    const pathname = new URL(url).pathname;
    const file = path.join("public", pathname);
    return pathname.startsWith("/build/") && fs.existsSync(file) ? zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length : 0;
  };
  const out: Record<string, { bytes: number; files: string[] }> = {};
  try {
    for (const [name, pathname, cookie] of pages) {
      const context = await browser.newContext();
      if (cookie) {
        const [cookieName, ...value] = cookie.split("=");
        await context.addCookies([{ name: cookieName!, value: value.join("="), url: BASE }]);
      }
      const page = await context.newPage();
      const files = new Set<string>();
      page.on("request", (request) => {
        if (request.resourceType() === "script") files.add(request.url());
      });
      await page.goto(`${BASE}${pathname}`, { waitUntil: "networkidle" });
      await page.waitForTimeout(300);
      const list = [...files];
      out[name] = { bytes: list.reduce((sum, url) => sum + gzipped(url), 0), files: list.map((url) => new URL(url).pathname) };
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return out;
}

async function waitForHealth() {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${BASE}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("The server did not become healthy within 30 s");
}

async function signInDemo(): Promise<string> {
  const response = await fetch(`${BASE}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
    body: new URLSearchParams({ email: "demo@example.com", password: "demo-password" }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 302 || !cookie) throw new Error(`Demo sign-in failed with ${response.status}`);
  return cookie;
}

async function run(pathname: string, headers: Record<string, string>, seconds: number): Promise<Measured> {
  const result = await autocannon({ url: `${BASE}${pathname}`, connections: CONNECTIONS, duration: seconds, headers });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: pathname === "/bench-floor" ? 0 : result.non2xx,
  };
}

await main();
