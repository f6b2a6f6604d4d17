import { readFileSync } from "node:fs";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { successStatus } from "../../api/http/contract/document";
import { CONTRACT_FILES, renderApiContract } from "../../scripts/api-contract";
import { ContractChecker, type Exchange } from "./contract-check";
import { databases, listen, request, routeFor, useApi } from "./harness";

interface Operation {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const spec = JSON.parse(readFileSync(CONTRACT_FILES.document, "utf8")) as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
};

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every path+method registered on the Express app (walking nested routers too). */
function registeredRoutes(stack: Layer[]): string[] {
  const out: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        if (method !== "_all") out.push(`${method.toUpperCase()} ${layer.route.path}`);
      }
    } else if (layer.handle?.stack) {
      out.push(...registeredRoutes(layer.handle.stack));
    }
  }
  return out;
}

function documentedRoutes(): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of Object.keys(item)) {
      // Express writes /x/{id} as /x/:id.
      if (HTTP_METHODS.includes(method)) out.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`);
    }
  }
  return out;
}

const [sqlite] = databases();

describe("OpenAPI document", () => {
  const t = useApi(sqlite!);

  it("is what `npm run api:contract` generates from the route declarations, and so are the portal's types", async () => {
    const generated = await renderApiContract();
    expect(readFileSync(CONTRACT_FILES.document, "utf8"), "api/openapi.json is stale: run npm run api:contract").toBe(
      generated.document,
    );
    expect(readFileSync(CONTRACT_FILES.types, "utf8"), "the portal's API types are stale: run npm run api:contract").toBe(
      generated.types,
    );
    expect(readFileSync(CONTRACT_FILES.countries, "utf8"), "the portal's countries are stale: run npm run api:contract").toBe(
      generated.countries,
    );
  });

  it("is a valid OpenAPI 3.1 document (swagger-parser's validator)", async () => {
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(spec) as never)).resolves.toBeDefined();
  });

  it("documents every operation with its schemas: request body (JSON and form) where it takes one, and the success answer", () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        const declared = routeFor(method, path);
        expect(declared, label).toBeDefined();
        if (declared?.body) {
          expect(op.requestBody?.required, label).toBe(true);
          expect(op.requestBody?.content["application/json"]?.schema, label).toBeDefined();
          expect(op.requestBody?.content["application/x-www-form-urlencoded"]?.schema, label).toBeDefined();
        } else if (declared?.rawBody) {
          // A body the handler reads as its sender sends it (a webhook): documented as that sender's JSON.
          expect(op.requestBody?.required, label).toBe(true);
          expect(op.requestBody?.content["application/json"]?.schema, label).toBeDefined();
        } else {
          expect(op.requestBody, label).toBeUndefined();
        }
        const status = successStatus(declared!);
        if (status === 200) {
          const ok = Object.values(op.responses["200"]?.content ?? {});
          expect(ok.length, label).toBe(1);
          expect(ok[0]?.schema, label).toBeDefined();
        } else {
          // A redirect: its Location, no body worth describing.
          expect(status, label).toBe(303);
          expect(op.responses["303"], label).toMatchObject({ headers: { Location: { required: true } } });
          expect(op.responses["200"], label).toBeUndefined();
        }
      }
    }
  });

  it("is OpenAPI 3.1 with a bearer security scheme", () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("documents the webhooks as their senders call them: Stripe's signed event, BitPay's notification with its secret", () => {
    const stripe = spec.paths["/api/payments/stripe/webhook"]!.post! as Operation & { parameters: Array<Record<string, unknown>> };
    expect(stripe.parameters).toContainEqual(expect.objectContaining({ in: "header", name: "Stripe-Signature", required: true }));
    expect(stripe.requestBody?.required).toBe(true);
    const bitpay = spec.paths["/api/payments/bitpay/notify"]!.post! as Operation & { parameters: Array<Record<string, unknown>> };
    expect(bitpay.parameters).toContainEqual(expect.objectContaining({ in: "query", name: "secret", required: true }));
    expect(bitpay.requestBody?.required).toBe(true);
  });

  it("marks the staff endpoint as needing the admin bearer token", () => {
    expect(spec.paths["/api/admin/refund-requests"]!.get!.security).toEqual([{ adminBearerAuth: [] }]);
    expect(spec.components.securitySchemes.adminBearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("marks the VPN servers' endpoints as needing a node token", () => {
    for (const [path, method] of [["/api/vpn/peers", "get"], ["/api/vpn/handshakes", "post"], ["/api/vpn/authenticate", "post"]] as const) {
      expect((spec.paths[path] as Record<string, Operation>)[method]!.security, path).toEqual([{ nodeBearerAuth: [] }]);
    }
    expect(spec.paths["/api/vpn/servers"]!.get!.security).toEqual([]);
    expect(spec.components.securitySchemes.nodeBearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("documents exactly the routes registered on the app", () => {
    const stack = (t.api.app as unknown as { _router: { stack: Layer[] } })._router.stack;
    // The Stripe sandbox's browser pages stand in for Stripe's own (hosted checkout, hosted invoice,
    // the Stripe.js tokenizer): their contract is Stripe's, not this API's (like the OpenID sandbox).
    const registered = registeredRoutes(stack)
      .filter((route) => !route.split(" ")[1]!.startsWith("/dev/stripe/"))
      .sort();
    expect(registered.length).toBeGreaterThan(0);
    expect(registered).toEqual(documentedRoutes().sort());
  });

  it("documents which routes need a bearer token, and the answers they give", async () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        expect(Object.keys(op.responses).some((status) => /^2|^303$/.test(status)), label).toBe(true);
        expect(op.responses["405"], label).toBeDefined();
        // A user's token, or a VPN server's (in sandbox mode manual setup is on, so its endpoints answer 401 without one).
        const needsToken = (op.security ?? []).some((s) => "bearerAuth" in s || "nodeBearerAuth" in s);
        const res = await t.request(method.toUpperCase(), path);
        if (needsToken) {
          expect(res.status, label).toBe(401);
          expect(op.responses["401"], label).toBeDefined();
        } else {
          expect(res.status, label).not.toBe(401);
        }
        expect(op.responses[String(res.status)], `${label} answered ${res.status}`).toBeDefined();
      }
    }
  });
});

describe("the harness's contract check", () => {
  const checker = ContractChecker.fromFile();
  const json = (body: unknown) => JSON.stringify(body);
  const jsonHeaders = (extra: Record<string, string> = {}) => new Headers({ "content-type": "application/json; charset=utf-8", ...extra });
  const exchange = (over: Partial<Exchange>): Exchange => ({
    method: "GET",
    path: "/api/me",
    requestHeaders: { authorization: "Bearer x" },
    status: 200,
    responseHeaders: jsonHeaders(),
    responseText: "",
    ...over,
  });
  const user = { id: 1, email: "a@b.c", name: null, has_password: true, email_verified_at: null, created_at: "2026-01-01T00:00:00.000Z", language: "en" };
  const error = (code: string, message: string, fields?: Record<string, string[]>) =>
    json({ status: false, success: false, message, errors: { message, code, ...(fields ? { fields } : {}) } });

  it("passes answers that keep the document: a success, an error with its envelope", () => {
    expect(checker.check(exchange({ responseText: json({ status: true, success: true, message: "OK", data: user }) }))).toEqual([]);
    expect(
      checker.check(exchange({ status: 401, responseHeaders: jsonHeaders({ "www-authenticate": "Bearer" }), responseText: error("unauthenticated", "Unauthenticated.") })),
    ).toEqual([]);
  });

  it("catches a body missing a required field or with one too many", () => {
    const { name: _, ...withoutName } = user;
    const [violation] = checker.check(exchange({ responseText: json({ status: true, success: true, message: "OK", data: { ...withoutName, admin: true } }) }));
    expect(violation).toMatch(/GET \/api\/me → 200: the body does not match the documented schema: .*required property 'name'.*additional properties/);
  });

  it("catches an undocumented status, an error without its envelope, a wrong content type, a missing documented header", () => {
    expect(checker.check(exchange({ status: 418, responseText: error("request_rejected", "Teapot.") }))).toEqual([
      expect.stringMatching(/status 418 is not documented for me/),
    ]);
    expect(checker.check(exchange({ status: 500, responseText: json({ error: "boom" }) }))).toEqual([
      expect.stringMatching(/500: the body does not match the documented schema/),
    ]);
    expect(checker.check(exchange({ responseHeaders: new Headers({ "content-type": "text/html" }), responseText: "<p>hi</p>" }))).toEqual([
      expect.stringMatching(/content type 'text\/html' is not documented/),
    ]);
    expect(checker.check(exchange({ status: 401, responseText: error("unauthenticated", "Unauthenticated.") }))).toEqual([
      expect.stringMatching(/the documented header WWW-Authenticate is missing/),
    ]);
    // An error's code is one of the document's.
    const unauthenticated = jsonHeaders({ "www-authenticate": "Bearer" });
    const withoutCode = json({ status: false, success: false, message: "Unauthenticated.", errors: { message: "Unauthenticated." } });
    expect(checker.check(exchange({ status: 401, responseHeaders: unauthenticated, responseText: withoutCode }))).toEqual([
      expect.stringMatching(/401: the body does not match the documented schema: .*required property 'code'/),
    ]);
    expect(checker.check(exchange({ status: 401, responseHeaders: unauthenticated, responseText: error("no_such_code", "Unauthenticated.") }))).toEqual([
      expect.stringMatching(/401: the body does not match the documented schema: .*allowed values/),
    ]);
  });

  it("holds accepted requests to the document, not refused ones (tests of 4xx answers send bad requests on purpose)", () => {
    const deleted = json({ status: true, success: true, message: "Deleted.", data: null });
    const del = { method: "POST", path: "/api/account/delete", requestHeaders: { authorization: "Bearer x", "content-type": "application/json" } };
    expect(checker.check(exchange({ ...del, requestBody: json({}), responseText: deleted }))).toEqual([
      expect.stringMatching(/the request body does not match its schema.*the API accepted this request/),
    ]);
    expect(checker.check(exchange({ ...del, requestBody: json({ password: "secret" }), responseText: deleted }))).toEqual([]);
    const refused = error("validation_failed", "Please enter your password.", { password: ["Please enter your password."] });
    expect(checker.check(exchange({ ...del, requestBody: json({}), status: 422, responseText: refused }))).toEqual([]);
    // Path parameters: digits only.
    const card = { method: "PUT", path: "/api/payment-methods/abc/set-default" };
    expect(checker.check(exchange({ ...card, responseText: json({ status: true, success: true, message: "OK", data: {} }) }))).toEqual(
      expect.arrayContaining([expect.stringMatching(/path parameter id="abc" does not match/)]),
    );
  });

  it("knows the paths the document does not list (404) and the methods it does not (405)", () => {
    expect(checker.check(exchange({ path: "/api/nowhere", status: 200, responseText: json({}) }))).toEqual([
      expect.stringMatching(/must answer 404/),
    ]);
    expect(checker.check(exchange({ path: "/api/nowhere", status: 404, responseText: error("not_found", "Not found.") }))).toEqual([]);
    expect(checker.check(exchange({ method: "DELETE", status: 200, responseText: json({}) }))).toEqual([expect.stringMatching(/must answer 405/)]);
    // OPTIONS is another method like any (the API answers no CORS preflight): 405 with Allow.
    expect(checker.check(exchange({ method: "OPTIONS", status: 204, responseText: "" }))).toEqual([expect.stringMatching(/must answer 405/)]);
    const notAllowed = error("method_not_allowed", "This method is not allowed for this address.");
    expect(checker.check(exchange({ method: "OPTIONS", status: 405, responseText: notAllowed }))).toEqual([expect.stringMatching(/Allow/i)]);
    expect(
      checker.check(exchange({ method: "OPTIONS", status: 405, responseHeaders: jsonHeaders({ allow: "GET, HEAD" }), responseText: notAllowed })),
    ).toEqual([]);
    // Another case or a trailing slash is not a listed path.
    expect(checker.check(exchange({ path: "/api/me/", status: 200 }))).toEqual([expect.stringMatching(/must answer 404/)]);
    // Not the API's namespace: a sandbox's pages are not checked.
    expect(checker.check(exchange({ path: "/dev/stripe/checkout/x", responseHeaders: new Headers({ "content-type": "text/html" }) }))).toEqual([]);
  });

  it("fails the request helper, so every API test is a contract test", async () => {
    // A stand-in API whose /api/me answers a user without most of its fields, and one field too many.
    const fake = await listen((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ status: true, success: true, message: "OK", data: { id: 1, email: "a@b.c", admin: true } }));
    });
    try {
      const base = `http://127.0.0.1:${fake.port}`;
      await expect(request(base, "GET", "/api/me")).rejects.toThrow(/GET \/api\/me → 200: the body does not match the documented schema/);
      // Paths outside the API's namespace are not checked.
      expect((await request(base, "GET", "/somewhere-else")).status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});
