import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { databases, useApi } from "./harness";

const spec = JSON.parse(readFileSync(new URL("../../api/openapi.json", import.meta.url), "utf8")) as {
  openapi: string;
  paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; responses: Record<string, unknown> }>>;
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
      if (HTTP_METHODS.includes(method)) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out;
}

const [sqlite] = databases();

describe("OpenAPI document", () => {
  const t = useApi(sqlite!);

  it("is OpenAPI 3.1 with a bearer security scheme", () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("documents exactly the routes registered on the app", () => {
    const stack = (t.api.app as unknown as { _router: { stack: Layer[] } })._router.stack;
    const registered = registeredRoutes(stack).sort();
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
