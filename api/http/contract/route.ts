import type { Express, Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import type { ZodOpenApiRequestBodyObject, ZodOpenApiResponseObject } from "zod-openapi";
import type { ApiContext } from "../context";
import { asyncHandler, parseBody, sendError, sendOk, validationError } from "../envelope";
import type { AuthState } from "../../identity/sessions";
import type { Text } from "../../platform/i18n";
import { getAuth, requireAuth } from "../auth";

/*
 * A route is its contract and its handler in one declaration: method, path, request schemas (body,
 * query, path parameters), the success `data` schema, the error answers, and the handler. The
 * same declaration registers the route on Express (so a route cannot exist without its contract),
 * generates the OpenAPI document (api/http/contract/document.ts), and lets the test harness check every
 * success answer against its `data` schema.
 */

export type Method = "get" | "post" | "put" | "patch" | "delete";
export type Tag = "Authentication" | "Account" | "Subscriptions" | "Billing" | "Manual setup" | "VPN servers" | "Public" | "Sandbox";

/** An error answer: its description (the body is the error envelope), a shared response, or null to leave a default out. */
export type ErrorDoc = string | ZodOpenApiResponseObject | null;

type Schema = z.ZodType;
type Parsed<S> = S extends Schema ? z.output<S> : undefined;

export interface HandlerArgs<B, Q, P, A extends boolean> {
  ctx: ApiContext;
  req: Request;
  res: Response;
  /** The body as the declared schema parsed it. */
  body: Parsed<B>;
  query: Parsed<Q>;
  params: Parsed<P>;
  /** The bearer token's user, device and token (routes with `auth: true`). */
  auth: A extends true ? AuthState : undefined;
}

/** What an enveloped route's handler returns: `data` as its schema describes it, and the message. */
export interface Ok<D extends Schema> {
  data: z.input<D>;
  /** English, or a Text (key and variables): written in the request's language (docs/decisions/064). */
  message?: string | Text;
  /** Fields repeated at the top level of the envelope where a client reads them there (registration's token). */
  topLevel?: Record<string, unknown>;
}

interface RouteBase<B, Q, P, A extends boolean> {
  method: Method;
  /** The full path in OpenAPI form: /api/cards/{id}/set-default. */
  path: string;
  operationId: string;
  tags: readonly [Tag, ...Tag[]];
  summary: string;
  description?: string;
  /** true: a bearer token is required (401 'Unauthenticated.' before anything else). */
  auth: A;
  /** A staff endpoint: the handler checks the admin bearer token (ADMIN_API_TOKEN) itself. */
  admin?: true;
  /** A VPN servers' endpoint: `before` checks their bearer token (VPN_NODE_TOKENS) itself. */
  node?: true;
  body?: B;
  query?: Q;
  params?: P;
  /** Request headers the handler reads itself (documented, not parsed here): a webhook's signature. */
  headers?: z.ZodObject;
  /**
   * A request body the handler reads itself, as its sender sends it (a webhook's raw JSON): documented
   * only, never parsed here, so no 400/413/415/422 defaults. Routes with `body` leave it out.
   */
  rawBody?: ZodOpenApiRequestBodyObject;
  /** Answers besides 200, by status. Defaults (overridable): 405, 500; 401 with auth; 400, 413, 415, 422 with a body; 422 with query or path parameters. */
  errors?: Partial<Record<number, ErrorDoc>>;
  /** Runs after authentication and before the request is parsed (a limit that counts every attempt). */
  before?: (args: { ctx: ApiContext; req: Request; res: Response }) => Promise<void>;
}

/** The usual answer: 200 with the success envelope, `data` described by a schema. */
export interface EnvelopeRoute<B, Q, P, A extends boolean, D extends Schema> extends RouteBase<B, Q, P, A> {
  success: {
    description: string;
    data: D;
    /** Top-level fields next to the envelope's, as returned in `Ok.topLevel`. */
    topLevel?: Record<string, Schema>;
  };
  handler: (args: HandlerArgs<B, Q, P, A>) => Promise<Ok<D>> | Ok<D>;
}

/** A route that writes its own answer (a page, a bare JSON array, a redirect); the contract still describes it. */
export interface RawRoute<B, Q, P, A extends boolean> extends RouteBase<B, Q, P, A> {
  success: {
    description: string;
    /** The success status (default 200): 303 for a redirect. */
    status?: number;
    /** The body; left out when the answer has none worth describing (a redirect). */
    raw?: { mediaType: string; schema: Schema };
    headers?: z.ZodObject;
  };
  handler: (args: HandlerArgs<B, Q, P, A>) => Promise<void> | void;
}

// biome-ignore lint: the erased form of every route, for lists.
export type AnyRoute = EnvelopeRoute<any, any, any, boolean, Schema> | RawRoute<any, any, any, boolean>;

/** Declares a route. Type inference ties the handler's arguments and result to the schemas. */
export function route<
  D extends Schema,
  A extends boolean,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
>(definition: EnvelopeRoute<B, Q, P, A, D>): AnyRoute;
export function route<
  A extends boolean,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
>(definition: RawRoute<B, Q, P, A>): AnyRoute;
export function route(definition: AnyRoute): AnyRoute {
  return definition;
}

// biome-ignore lint: erased like AnyRoute.
export function isEnveloped(r: AnyRoute): r is EnvelopeRoute<any, any, any, boolean, Schema> {
  return "data" in r.success;
}

/** /api/cards/{id} -> /api/cards/:id */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/**
 * Registers routes on Express, grouped by path: each path answers its declared methods (HEAD with
 * GET), any other method, OPTIONS included, with 405 and an Allow header naming the declared ones,
 * as the document says. (No CORS: the API's only browser client is the portal, on its own origin.)
 */
export function registerRoutes(app: Express, ctx: ApiContext, routes: readonly AnyRoute[]): void {
  const byPath = new Map<string, AnyRoute[]>();
  for (const r of routes) {
    const list = byPath.get(r.path) ?? [];
    if (list.some((other) => other.method === r.method)) throw new Error(`Route declared twice: ${r.method} ${r.path}`);
    list.push(r);
    byPath.set(r.path, list);
  }

  // Literal paths before paths with parameters, so /x/pay is never taken for /x/{id}.
  const paths = [...byPath].sort(([a], [b]) => Number(a.includes("{")) - Number(b.includes("{")));
  for (const [path, list] of paths) {
    const expressRoute = app.route(expressPath(path));
    const methods: string[] = [];
    for (const r of list) {
      const handlers: RequestHandler[] = [];
      if (r.auth) handlers.push(requireAuth(ctx));
      handlers.push(handle(ctx, r));
      expressRoute[r.method](...handlers);
      methods.push(r.method.toUpperCase());
      if (r.method === "get") methods.push("HEAD");
    }
    const allow = methods.join(", ");
    expressRoute.all((_req, res) => {
      res.setHeader("Allow", allow);
      sendError(res, "method_not_allowed", "This method is not allowed for this address.");
    });
  }
}

function handle(ctx: ApiContext, r: AnyRoute): RequestHandler {
  return asyncHandler(async (req, res) => {
    if (r.before) await r.before({ ctx, req, res });
    // biome-ignore lint: the schemas are erased here; route() checked them.
    const args: HandlerArgs<any, any, any, boolean> = {
      ctx,
      req,
      res,
      body: r.body ? parseBody(req, r.body) : undefined,
      query: r.query ? parseInput(r.query, req.query) : undefined,
      params: r.params ? parseInput(r.params, req.params) : undefined,
      auth: r.auth ? getAuth(res) : undefined,
    };
    if (isEnveloped(r)) {
      const ok = await r.handler(args);
      sendOk(res, ok.data, ok.message, ok.topLevel);
    } else {
      await (r as RawRoute<unknown, unknown, unknown, boolean>).handler(args);
    }
  });
}

/** Query strings and path parameters: 422 with per-field messages, like bodies. */
function parseInput(schema: Schema, input: unknown): unknown {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

