import type { z } from "zod";
import {
  type CreateDocumentOptions,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  createDocument,
} from "zod-openapi";
import { errorResponse, responses, successSchema } from "./responses";
import type { AnyRoute, ErrorDoc } from "./route";

/*
 * The OpenAPI 3.1 document, generated from the route declarations (`npm run api:contract` writes
 * api/openapi.json and the portal's types; a test fails when the committed files differ).
 */

const INFO = {
  title: "VPN account portal — product API",
  version: "1.0.0",
  description:
    "The product API behind the account portal. Every answer is JSON in one of two envelopes: success (HTTP 200) `{status: true, success: true, message, data}` or error (4xx/5xx) `{status: false, success: false, message, errors: {message, code, fields?}}`; `fields` appears only on 422 validation errors. Request bodies may be JSON or application/x-www-form-urlencoded, at most 64 kB. Text fields (names, codes, device details, messages; passwords excepted) refuse control characters (U+0000–U+001F, U+007F–U+009F), bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and U+2028/U+2029 with 422 'Remove the control characters from the {field}.' (a multi-line message keeps its line breaks and tabs; a name from Google or Apple is cleaned instead). Paths are matched exactly, case and trailing slash included (/API/health and /api/health/ are not listed): paths not listed answer 404; listed paths answer any other method, OPTIONS included, with 405 and an Allow header naming the documented ones (HEAD with GET).",
};

const TAGS = [
  { name: "Authentication" },
  { name: "Account" },
  { name: "Subscriptions" },
  { name: "Billing" },
  { name: "Manual setup", description: "WireGuard configurations and service credentials for devices the apps do not cover (issue 34)." },
  { name: "VPN servers", description: "What the VPN servers read: the server list, the peers they must accept, handshakes and service-credential checks." },
  { name: "Public" },
  { name: "Sandbox", description: "Pages of the sandbox integrations; absent when the integration is live." },
];

const BEARER = {
  type: "http",
  scheme: "bearer",
  description:
    "An opaque token from /api/user/login (32 random bytes, base64url). Missing, unknown, revoked or expired tokens answer 401 'Unauthenticated.'.",
} as const;

const ADMIN_BEARER = {
  type: "http",
  scheme: "bearer",
  description:
    "Staff endpoints: the ADMIN_API_TOKEN of the configuration (not a user's token). Another or no token answers 401; without ADMIN_API_TOKEN configured these endpoints answer 404.",
} as const;

const NODE_BEARER = {
  type: "http",
  scheme: "bearer",
  description:
    "The VPN servers' endpoints: one of the configuration's VPN_NODE_TOKENS (in sandbox mode also `sandbox-node-token`), not a user's token. Another or no token answers 401; with manual setup off (outside sandbox mode without VPN_NODE_TOKENS) these endpoints answer 404.",
} as const;

/** The error answers every route of its kind gives, before the route's own `errors`. */
function defaultErrors(r: AnyRoute): Record<number, ErrorDoc> {
  const errors: Record<number, ErrorDoc> = {};
  if (r.body || r.rawBody) errors[400] = responses.BadRequest;
  if (r.auth) errors[401] = responses.Unauthenticated;
  errors[405] = responses.MethodNotAllowed;
  if (r.body || r.rawBody) errors[413] = responses.PayloadTooLarge;
  if (r.body) errors[415] = responses.UnsupportedMediaType;
  if (r.body || r.query || r.params) errors[422] = responses.ValidationError;
  errors[500] = responses.ServerError;
  return errors;
}

/** The success status of a route: 200, or a raw route's own (303 for a redirect). */
export function successStatus(r: AnyRoute): number {
  return "data" in r.success ? 200 : (r.success.status ?? 200);
}

function operation(r: AnyRoute): ZodOpenApiOperationObject {
  const answers: Record<string, ZodOpenApiResponseObject> = {};
  const { success } = r;
  answers[String(successStatus(r))] =
    "data" in success
      ? {
          description: success.description,
          content: { "application/json": { schema: successSchema(success.data, success.topLevel) } },
        }
      : {
          description: success.description,
          ...(success.headers ? { headers: success.headers } : {}),
          ...(success.raw ? { content: { [success.raw.mediaType]: { schema: success.raw.schema } } } : {}),
        };
  const errors = { ...defaultErrors(r), ...r.errors };
  for (const status of Object.keys(errors).map(Number).sort((a, b) => a - b)) {
    const doc = errors[status];
    if (doc === null || doc === undefined) continue;
    answers[String(status)] = typeof doc === "string" ? errorResponse(doc) : doc;
  }

  const op: ZodOpenApiOperationObject = {
    tags: [...r.tags],
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    security: r.auth ? [{ bearerAuth: [] }] : r.admin ? [{ adminBearerAuth: [] }] : r.node ? [{ nodeBearerAuth: [] }] : [],
    responses: answers,
  };
  if (r.query || r.params || r.headers) {
    op.requestParams = {
      ...(r.query ? { query: r.query as z.ZodObject } : {}),
      ...(r.params ? { path: r.params as z.ZodObject } : {}),
      ...(r.headers ? { header: r.headers } : {}),
    };
  }
  if (r.body && r.rawBody) throw new Error(`${r.operationId}: body and rawBody exclude each other`);
  if (r.body) {
    op.requestBody = {
      required: true,
      content: {
        "application/json": { schema: r.body },
        "application/x-www-form-urlencoded": { schema: r.body },
      },
    };
  } else if (r.rawBody) {
    op.requestBody = r.rawBody;
  }
  return op;
}

/** Tidies zod's JSON Schema: no "any extra property" noise, no safe-integer bounds on every integer. */
const tidy: CreateDocumentOptions["override"] = ({ jsonSchema }) => {
  const s = jsonSchema as Record<string, unknown>;
  if (s.additionalProperties && typeof s.additionalProperties === "object" && !Object.keys(s.additionalProperties).length) {
    delete s.additionalProperties;
  }
  if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
  if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
};

export function buildOpenApiDocument(routes: readonly AnyRoute[]) {
  const paths: ZodOpenApiPathsObject = {};
  for (const r of routes) {
    paths[r.path] = { ...paths[r.path], [r.method]: operation(r) };
  }
  return createDocument(
    {
      openapi: "3.1.0",
      info: INFO,
      servers: [{ url: "/", description: "The portal's origin (embedded) or API_PORT (standalone)" }],
      tags: TAGS,
      paths,
      // NotFound answers every path that is not listed; no operation names it.
      components: { securitySchemes: { bearerAuth: BEARER, adminBearerAuth: ADMIN_BEARER, nodeBearerAuth: NODE_BEARER }, responses: { NotFound: responses.NotFound } },
    },
    { override: tidy },
  );
}
