/**
 * The contract check over real traffic: every exchange the API tests make through the harness is
 * checked against the committed OpenAPI document (api/openapi.json, which tests/api/openapi.test.ts
 * proves fresh), with ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1's):
 *   - the answer: its status is one the operation documents, its content type one that status
 *     documents, its body valid against that media type's schema, its required headers present;
 *     errors included (4xx/5xx answers against their error schema). A path that no operation
 *     documents must answer 404 with the NotFound body; another method on a documented path (OPTIONS
 *     too) 405.
 *   - the request, when the API accepted it (an answer below 400): path, query and header parameters
 *     and the body against the operation's. A request the API refuses (tests of 4xx answers send
 *     bad requests on purpose) is not held to the document; the answer still is.
 * `checkExchange` returns the violations; the harness throws them from the request helper, so an
 * API test whose traffic breaks the contract fails where it made the request.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: its default export is the function under ESM and under tsx alike.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

type Json = Record<string, any>;

export const OPENAPI_FILE = fileURLToPath(new URL("../../api/openapi.json", import.meta.url));

export interface Exchange {
  method: string;
  /** Path and query string, as requested. */
  path: string;
  requestHeaders: Record<string, string>;
  /** The body as sent (a string), or undefined. */
  requestBody?: string;
  status: number;
  responseHeaders: Headers;
  responseText: string;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** The OpenAPI document and the validators compiled from it. */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  /** For parameters: strings as they travel in paths, query strings and headers, read as their schema's type. */
  private readonly coercing: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: Array<{ template: string; regex: RegExp; literal: boolean }>;

  constructor(private readonly doc: Json) {
    const make = (coerceTypes: boolean) => {
      const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
      addFormats(ajv);
      // The whole document, so that "#/components/schemas/X" resolves from any schema in it.
      ajv.addSchema(doc, "openapi");
      return ajv;
    };
    this.ajv = make(false);
    this.coercing = make(true);
    this.paths = Object.keys(doc.paths ?? {})
      .map((template) => ({
        template,
        regex: new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{\w+\}/g, "([^/]+)")}$`),
        literal: !template.includes("{"),
      }))
      // Literal paths first, as the app registers them (/x/pay is never taken for /x/{id}).
      .sort((a, b) => Number(b.literal) - Number(a.literal));
  }

  static fromFile(file = OPENAPI_FILE): ContractChecker {
    return new ContractChecker(JSON.parse(readFileSync(file, "utf8")));
  }

  /** A JSON pointer into the document, escaped. */
  private static pointer(...parts: string[]): string {
    return `#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
  }

  private validator(pointer: string, coercing = false): ValidateFunction {
    const key = `${coercing ? "c" : "s"}${pointer}`;
    let v = this.validators.get(key);
    if (!v) {
      v = (coercing ? this.coercing : this.ajv).compile({ $ref: `openapi${pointer}` });
      this.validators.set(key, v);
    }
    return v;
  }

  private deref<T = Json>(value: Json): { value: T; pointer: string | undefined } {
    let pointer: string | undefined;
    let current = value;
    while (current && typeof current.$ref === "string") {
      pointer = current.$ref;
      current = current.$ref
        .slice(2)
        .split("/")
        .map((p: string) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce((node: Json, key: string) => node?.[key], this.doc);
    }
    return { value: current as T, pointer };
  }

  private static errors(v: ValidateFunction): string {
    return (v.errors ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || "(root)"} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`)
      .join("; ");
  }

  /** The documented path template of a pathname, and its parameters. */
  match(pathname: string): { template: string; params: Record<string, string> } | undefined {
    for (const p of this.paths) {
      const m = p.regex.exec(pathname);
      if (!m) continue;
      const names = [...p.template.matchAll(/\{(\w+)\}/g)].map((n) => n[1]!);
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
      return { template: p.template, params };
    }
    return undefined;
  }

  /** The contract violations of one exchange (empty when it keeps the contract). */
  check(ex: Exchange): string[] {
    const method = ex.method.toLowerCase();
    const url = new URL(ex.path, "http://x");
    const label = `${ex.method.toUpperCase()} ${ex.path} → ${ex.status}`;
    const found = this.match(url.pathname);
    const violations: string[] = [];
    const fail = (message: string) => violations.push(`${label}: ${message}`);

    if (!found) {
      // Not the API's (a sandbox's pages, the portal): only /api/ is the API's own namespace.
      if (url.pathname.startsWith("/api/")) {
        if (ex.status !== 404) fail("a path the document does not list must answer 404");
        else this.checkAnswer(fail, { $ref: "#/components/responses/NotFound" }, ex, method);
      }
      return violations;
    }
    const item = this.doc.paths[found.template] as Json;
    const op = item[method] as Json | undefined;
    if (!op) {
      if (method === "head" && item.get) return violations; // Express answers HEAD with GET's headers
      const documented = HTTP_METHODS.filter((m) => item[m]);
      if (ex.status !== 405) fail(`the path documents only ${documented.join(", ").toUpperCase()}: another method must answer 405`);
      else this.checkAnswer(fail, { $ref: "#/components/responses/MethodNotAllowed" }, ex, method);
      return violations;
    }

    const opPointer = ContractChecker.pointer("paths", found.template, method);
    const response = op.responses?.[String(ex.status)] ?? op.responses?.default;
    if (!response) {
      fail(`status ${ex.status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses ?? {}).join(", ")})`);
    } else {
      const inline = !response.$ref;
      this.checkAnswer(fail, response, ex, method, inline ? `${opPointer}/responses/${ex.status}` : undefined);
    }
    if (ex.status < 400) this.checkRequest(fail, op, opPointer, ex, url, found.params);
    return violations;
  }

  private checkAnswer(fail: (m: string) => void, response: Json, ex: Exchange, method: string, inlinePointer?: string) {
    const { value, pointer } = this.deref(response);
    const base = pointer ?? inlinePointer!;
    for (const [name, header] of Object.entries((value.headers ?? {}) as Json)) {
      const h = this.deref(header).value;
      if (h.required && ex.responseHeaders.get(name) === null) fail(`the documented header ${name} is missing`);
    }
    if (method === "head" || !value.content) return;
    const type = (ex.responseHeaders.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const media = Object.keys(value.content).find((m) => m.toLowerCase() === type);
    if (!media) {
      fail(`content type '${type}' is not documented (documented: ${Object.keys(value.content).join(", ")})`);
      return;
    }
    if (!value.content[media].schema) return;
    let body: unknown = ex.responseText;
    if (/[/+]json$/.test(media)) {
      try {
        body = JSON.parse(ex.responseText);
      } catch {
        fail("the body is not JSON");
        return;
      }
    }
    const v = this.validator(`${base}/content/${media.replace(/~/g, "~0").replace(/\//g, "~1")}/schema`);
    if (!v(body)) fail(`the body does not match the documented schema: ${ContractChecker.errors(v)}`);
  }

  private checkRequest(
    fail: (m: string) => void,
    op: Json,
    opPointer: string,
    ex: Exchange,
    url: URL,
    pathParams: Record<string, string>,
  ) {
    const where = " (the API accepted this request: the document must too)";
    (op.parameters ?? []).forEach((param: Json, i: number) => {
      const p = this.deref(param).value;
      let value: string | undefined;
      if (p.in === "path") value = pathParams[p.name];
      else if (p.in === "query") value = url.searchParams.get(p.name) ?? undefined;
      else if (p.in === "header") value = ex.requestHeaders[p.name.toLowerCase()];
      else return;
      if (value === undefined) {
        if (p.required) fail(`the required ${p.in} parameter ${p.name} is missing${where}`);
        return;
      }
      const v = this.validator(`${opPointer}/parameters/${i}/schema`, true);
      if (!v(value)) fail(`the ${p.in} parameter ${p.name}=${JSON.stringify(value)} does not match its schema: ${ContractChecker.errors(v)}${where}`);
    });

    if (!op.requestBody) return;
    const requestBody = this.deref(op.requestBody).value;
    if (ex.requestBody === undefined || ex.requestBody === "") {
      if (requestBody.required) fail(`the request body is required${where}`);
      return;
    }
    const type = (ex.requestHeaders["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const media = Object.keys(requestBody.content ?? {}).find((m) => m.toLowerCase() === type);
    if (!media) {
      fail(`the request's content type '${type}' is not documented (documented: ${Object.keys(requestBody.content ?? {}).join(", ")})${where}`);
      return;
    }
    let body: unknown;
    if (media === "application/x-www-form-urlencoded") {
      body = Object.fromEntries(new URLSearchParams(ex.requestBody));
    } else {
      try {
        body = JSON.parse(ex.requestBody);
      } catch {
        fail(`the request body is not JSON${where}`);
        return;
      }
    }
    const v = this.validator(`${opPointer}/requestBody/content/${media.replace(/\//g, "~1")}/schema`);
    if (!v(body)) fail(`the request body does not match its schema: ${ContractChecker.errors(v)}${where}`);
  }
}
