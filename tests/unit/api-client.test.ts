import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setPortalConfigForTests } from "./portal-config";

// The portal's API client over real HTTP against a stand-in: what it sends (path and query
// parameters, JSON bodies, the forwarded headers) and how it reads every kind of answer.
type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
const seen: Seen[] = [];
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end();
/** Answers the stand-in holds: the API hanging. */
const held: http.ServerResponse[] = [];
const hang = (_req: http.IncomingMessage, res: http.ServerResponse) => void held.push(res);

const standIn = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
    answer(req, res);
  });
});

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

let client: typeof import("~/utils/api.server");
let sessions: typeof import("~/utils/session.server");
/** A request's load context: server.ts makes one per request, and the calls made for it share one deadline. */
const context = () => ({ clientIp: "203.0.113.9", requestId: "req-42" });
const request = new Request("http://portal.test/billing?page=2", { headers: { "User-Agent": "Browser/2.0" } });

beforeAll(async () => {
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  setPortalConfigForTests({
    API_URL: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`,
    SESSION_SECRET: "unit-test-session-secret-0123456789abcdef",
    API_TIMEOUT_MS: "500",
  });
  client = await import("~/utils/api.server");
  sessions = await import("~/utils/session.server");
});

afterAll(() => {
  for (const res of held) res.destroy();
  standIn.close();
});

describe("the API client", () => {
  it("fills path parameters (encoded) and the query string, and forwards the token, address, request id and user agent", async () => {
    seen.length = 0;
    answer = (_req, res) => json(res, 200, { status: true, message: "OK", data: { id: "a b" } });
    const api = client.createApiClient(request, context(), "tok-1");
    const result = await api.get("/api/payments/crypto/invoices/{id}", { params: { path: { id: "a b/c" } } });
    expect(result).toEqual({ ok: true, status: 200, message: "OK", data: { id: "a b" } });
    await api.get("/api/getCurrentcards", { params: { query: { page: 2, per_page: 10 } } });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["GET /api/payments/crypto/invoices/a%20b%2Fc", "GET /api/getCurrentcards?page=2&per_page=10"]);
    expect(seen[0]?.headers).toMatchObject({
      authorization: "Bearer tok-1",
      "x-forwarded-for": "203.0.113.9",
      "x-request-id": "req-42",
      "user-agent": "Browser/2.0",
      accept: "application/json",
    });
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
  });

  it("sends a body as JSON with its length", async () => {
    seen.length = 0;
    answer = (_req, res) => json(res, 200, { status: true, message: "Sent", data: null });
    const api = client.createApiClient(request, context());
    const result = await api.post("/api/auth/forgot-password", { body: { email: "été@example.com" } });
    expect(result).toMatchObject({ ok: true, message: "Sent" });
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
    expect(seen[0]?.headers["content-length"]).toBe(String(Buffer.byteLength(seen[0]!.body)));
    expect(JSON.parse(seen[0]!.body)).toEqual({ email: "été@example.com" });
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it("reads the error envelope's code, message and field errors, and an error that is not JSON", async () => {
    answer = (_req, res) =>
      json(res, 422, {
        status: false,
        message: "The email is not valid.",
        errors: { message: "The email is not valid.", code: "validation_failed", fields: { email: ["The email is not valid."] } },
      });
    const api = client.createApiClient(request, context());
    expect(await api.post("/api/auth/forgot-password", { body: { email: "x" } })).toEqual({
      ok: false,
      status: 422,
      code: "validation_failed",
      message: "The email is not valid.",
      fieldErrors: { email: ["The email is not valid."] },
    });
    answer = (_req, res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    };
    expect(await api.post("/api/auth/forgot-password", { body: { email: "x" } })).toEqual({ ok: false, status: 502, code: null, message: "", fieldErrors: {} });
  });

  it("takes a success that is not JSON, an unreachable API and a slow one as the API being unavailable", async () => {
    const api = client.createApiClient(request, context());
    answer = (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<html>a captive portal</html>");
    };
    expect(await api.get("/api/download-links")).toEqual({ ok: false, status: 503, code: null, message: client.SERVICE_UNAVAILABLE_MESSAGE, fieldErrors: {} });
    answer = (_req, res) => void setTimeout(() => json(res, 200, { status: true, data: {} }), 1_500);
    const started = Date.now();
    expect(await api.get("/api/download-links")).toMatchObject({ ok: false, status: 503 });
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it("gives the calls made for one request one deadline, and does not send again a call that timed out on a kept-alive connection", async () => {
    const api = client.createApiClient(request, context());
    answer = (_req, res) => json(res, 200, { status: true, data: {} });
    await api.get("/api/me");
    seen.length = 0;
    answer = hang;
    const started = performance.now();
    expect(await api.get("/api/me")).toMatchObject({ ok: false, status: 503 });
    expect(await api.get("/api/devices")).toMatchObject({ ok: false, status: 503 });
    expect(performance.now() - started).toBeLessThan(500 + 200);
    // The first was sent once, on the connection kept from the call before; the second had no time left.
    expect(seen.map((s) => s.url)).toEqual(["/api/me"]);
  });

  it("gives an action's calls and the page's loaders after it a deadline each", async () => {
    answer = hang;
    const page = context();
    const post = new Request("http://portal.test/forget-password", { method: "POST" });
    expect(await client.createApiClient(post, page).post("/api/auth/forgot-password", { body: { email: "x" } })).toMatchObject({ ok: false, status: 503 });
    seen.length = 0;
    // Remix asks the loaders after an action with a GET of the page.
    const loaders = client.createApiClient(new Request("http://portal.test/forget-password"), page);
    expect(await loaders.get("/api/me")).toMatchObject({ ok: false, status: 503 });
    expect(seen.map((s) => s.url)).toEqual(["/api/me"]);
  });

  it("downloads a file with the media type asked for, and gives null when the API is unreachable", async () => {
    seen.length = 0;
    answer = (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/pdf" });
      res.end("%PDF-1.4 invoice");
    };
    const api = client.createApiClient(request, context(), "tok-2");
    const file = await api.getFile("/api/invoice/{id}/{paymentGateway}", { params: { path: { id: 7, paymentGateway: "bitpay" } }, accept: "application/pdf" });
    expect(file?.status).toBe(200);
    expect(file?.headers["content-type"]).toBe("application/pdf");
    expect(file?.body.toString()).toBe("%PDF-1.4 invoice");
    expect(seen[0]).toMatchObject({ method: "GET", url: "/api/invoice/7/bitpay" });
    expect(seen[0]?.headers).toMatchObject({ accept: "application/pdf", authorization: "Bearer tok-2" });
    answer = (_req, res) => void setTimeout(() => res.end(), 1_500);
    expect(await api.getFile("/api/invoice/{id}/{paymentGateway}", { params: { path: { id: 7, paymentGateway: "bitpay" } } })).toBeNull();
  });

  it("signs the visitor out when the API no longer accepts their token", async () => {
    answer = (_req, res) => json(res, 401, { status: false, message: "Unauthenticated." });
    const probe = new Request("http://portal.test/");
    const cookie = (await sessions.commitTokenSession(probe, "revoked")).split(";")[0]!;
    const signedIn = new Request("http://portal.test/billing", { headers: { Cookie: cookie } });
    const api = client.createApiClient(signedIn, context(), "revoked");
    const thrown = await api.get("/api/me").then(
      () => null,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("Location")).toMatch(/^\/login\?/);
  });
});
