import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setPortalConfigForTests } from "./portal-config";

// The product API hanging (accepting connections, answering nothing) under pages loading at once: every
// page answers its 503 within the client's timeout. Real HTTP on both sides: a stand-in API that answers
// until it is hung, and a stand-in portal that runs a page's loaders as Remix does for a document (all
// of them at once, one load context per request, the answer once every loader has settled).
const API_TIMEOUT_MS = 1_000;
/** Beyond the timeout: the loaders' own work and the round trips on a busy two-core machine (the fault was a second timeout). */
const MARGIN_MS = 500;

let hung = false;
const held: http.ServerResponse[] = [];
const api = http.createServer((_req, res) => {
  if (hung) return void held.push(res);
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ status: true, data: { id: 1, email: "someone@example.com", name: null, has_password: true } }));
});

type Loader = (args: LoaderFunctionArgs) => Promise<unknown>;
let pages: Record<string, Loader[]>;
let sessions: typeof import("~/utils/session.server");
let token: string;

/** The status Remix answers a document with: the first loader's thrown Response, or 200. */
async function renderStatus(request: Request, context: LoaderFunctionArgs["context"], loaders: Loader[]): Promise<number> {
  const settled = await Promise.allSettled(loaders.map((loader) => loader({ request, context, params: { planId: "6" } })));
  for (const result of settled) {
    if (result.status === "rejected") return result.reason instanceof Response ? result.reason.status : 500;
    if (result.value instanceof Response && result.value.status >= 300) return result.value.status;
  }
  return 200;
}

const portal = http.createServer((req, res) => {
  const loaders = pages[req.url!.split("?")[0]!]!;
  const request = new Request(`http://portal.test${req.url}`, { headers: req.headers.cookie ? { Cookie: req.headers.cookie } : {} });
  // One load context per request, as server.ts's getLoadContext makes it.
  const context = { clientIp: "203.0.113.7", cspNonce: "", requestId: `req-${Math.random()}` };
  void renderStatus(request, context, loaders).then((status) => res.writeHead(status).end());
});
const portalAgent = new http.Agent({ keepAlive: false });

function load(path: string, cookie?: string): Promise<{ path: string; status: number; elapsed: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const port = (portal.address() as AddressInfo).port;
    http
      .get({ host: "127.0.0.1", port, path, agent: portalAgent, headers: cookie ? { Cookie: cookie } : {} }, (res) => {
        res.resume();
        res.on("end", () => resolve({ path, status: res.statusCode!, elapsed: Math.round(performance.now() - started) }));
      })
      .on("error", reject);
  });
}

beforeAll(async () => {
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => portal.listen(0, "127.0.0.1", resolve));
  setPortalConfigForTests({
    API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    SESSION_SECRET: "unit-test-session-secret-0123456789abcdef",
    API_TIMEOUT_MS: String(API_TIMEOUT_MS),
  });
  const root = await import("~/root");
  const login = await import("~/routes/login/route");
  const pricing = await import("~/routes/pricing");
  const getCode = await import("~/routes/get-code");
  const forgetPassword = await import("~/routes/forget-password");
  const checkout = await import("~/routes/subscription.payment.$planId/route");
  const home = await import("~/routes/_index");
  const layout = await import("~/routes/_app");
  const billing = await import("~/routes/_app.billing/route");
  const devices = await import("~/routes/_app.connected-devices");
  pages = {
    "/login": [root.loader, login.loader],
    "/pricing": [root.loader, pricing.loader],
    "/get-code": [root.loader, getCode.loader],
    "/forget-password": [root.loader, forgetPassword.loader],
    "/subscription/payment/6": [root.loader, checkout.loader],
    "/": [root.loader, home.loader],
    "/billing": [root.loader, layout.loader, billing.loader],
    "/connected-devices": [root.loader, layout.loader, devices.loader],
  } as Record<string, Loader[]>;
  sessions = await import("~/utils/session.server");
  token = (await sessions.commitTokenSession(new Request("http://portal.test/"), "good-token")).split(";")[0]!;
});

afterAll(() => {
  for (const res of held) res.destroy();
  api.close();
  api.closeAllConnections();
  portal.close();
  vi.useRealTimers();
});

describe("the API hanging", () => {
  it("ten pages loading at once, signed out and signed in, each answer 503 within the client's timeout, and the next ten at once", async () => {
    // The portal has been talking to the API: kept-alive connections wait in its agent, as in production.
    const { createApiClient, requireApiReachable } = await import("~/utils/api.server");
    const warm = createApiClient(new Request("http://portal.test/"), { clientIp: "203.0.113.7" }, "good-token");
    await Promise.all(Array.from({ length: 12 }, () => warm.get("/api/me")));
    await requireApiReachable(new Request("http://portal.test/"));

    hung = true;
    // The health answer seen before the hang has expired (it is kept a second).
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 5_000 });
    const signedOut = ["/login", "/pricing", "/get-code", "/forget-password", "/subscription/payment/6"];
    const signedIn = ["/", "/billing", "/connected-devices", "/pricing", "/subscription/payment/6"];
    const loadAll = () => Promise.all([...signedOut.map((path) => load(path)), ...signedIn.map((path) => load(path, token))]);
    const report = (answers: Awaited<ReturnType<typeof loadAll>>) => answers.map((a) => `${a.path} ${a.status} ${a.elapsed} ms`).join(", ");

    const first = await loadAll();
    expect(first.map((a) => a.status)).toEqual(Array(10).fill(503));
    expect(Math.max(...first.map((a) => a.elapsed)), report(first)).toBeLessThan(API_TIMEOUT_MS + MARGIN_MS);

    // The pages of the next second know it already (the clock is still within the health answer's second).
    const next = await loadAll();
    expect(next.map((a) => a.status)).toEqual(Array(10).fill(503));
    expect(Math.max(...next.map((a) => a.elapsed)), report(next)).toBeLessThan(MARGIN_MS);
  });
});
