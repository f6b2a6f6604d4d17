import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONTRACT_FILES, renderApiContract } from "../../scripts/api-contract";
import { databases, listen, request, routeFor, useApi } from "./harness";

interface Operation {
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
  });

  it("documents every operation with its schemas: request body (JSON and form) where it takes one, and the 200 answer", () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        const declared = routeFor(method, path);
        expect(declared, label).toBeDefined();
        if (declared?.body) {
          expect(op.requestBody?.required, label).toBe(true);
          expect(op.requestBody?.content["application/json"]?.schema, label).toBeDefined();
          expect(op.requestBody?.content["application/x-www-form-urlencoded"]?.schema, label).toBeDefined();
        } else {
          expect(op.requestBody, label).toBeUndefined();
        }
        const ok = Object.values(op.responses["200"]?.content ?? {});
        expect(ok.length, label).toBe(1);
        expect(ok[0]?.schema, label).toBeDefined();
      }
    }
  });

  it("is OpenAPI 3.1 with a bearer security scheme", () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
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
        expect(op.responses["200"], label).toBeDefined();
        expect(op.responses["405"], label).toBeDefined();
        const needsToken = (op.security ?? []).some((s) => "bearerAuth" in s);
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
  it("fails a test whose 200 answer does not match the route's declared data schema", async () => {
    // A stand-in API whose /api/me answers a user without most of its fields, and one field too many.
    const fake = await listen((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ status: true, success: true, message: "OK", data: { id: 1, email: "a@b.c", admin: true } }));
    });
    try {
      const base = `http://127.0.0.1:${fake.port}`;
      await expect(request(base, "GET", "/api/me")).rejects.toThrow(/GET \/api\/me answered 200 with a body that does not match/);
      // Paths that are not declared routes are not checked.
      expect((await request(base, "GET", "/somewhere-else")).status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});
