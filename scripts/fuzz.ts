// `npm run fuzz` (10,000 posts) and `npm run fuzz:short` (300; part of `npm test`): a property-based
// fuzzer (fast-check) that posts generated bodies to every portal route with an action (from the Remix
// build's route manifest) and every API operation (from api/openapi.json), anonymous and signed in:
// wrong types, missing and extra fields, huge strings, unicode, nested objects, as JSON, form,
// multipart, text, a wrong or no content type, malformed, oversized and chunked bodies.
// Bars: no 5xx and no failed request; every 4xx carries a message (the API's error envelope; the
// portal's field or form error, toast, error page or plain text); a rejected post changes no data
// (a checksum of the tables before and after). Replay one case: npm run fuzz -- --seed N --only "#123 ".
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import fc from "fast-check";
import { portalSignIn, signUpThroughApi } from "../tests/support/accounts";
import { DECLINED_CARD, digitsOf, GOOD_CARD } from "../tests/support/cards";
import { uniqueEmail } from "../tests/support/emails";
import { LOOPBACK_LIMITS, startQualityServer } from "./quality-server";

const { values: args } = parseArgs({
  options: {
    short: { type: "boolean", default: false },
    runs: { type: "string" },
    seed: { type: "string" },
    only: { type: "string" },
    concurrency: { type: "string" },
  },
});
const RUNS = Number(args.runs ?? (args.short ? 300 : 10_000));
const SEED = args.seed !== undefined ? Number(args.seed) : Math.floor(Math.random() * 2 ** 31);
const CONCURRENCY = Number(args.concurrency ?? 4);
const PORT = Number(process.env.FUZZ_PORT ?? 3401);
const PORTAL_BODY_LIMIT = 1024 * 1024; // server.ts MAX_PORTAL_BODY_BYTES
const API_BODY_LIMIT = 64 * 1024; // api/http/app.ts BODY_LIMIT

// ---------------------------------------------------------------------------------------------
// Targets

type Target = {
  kind: "portal" | "api";
  method: string;
  /** With :name / {name} placeholders. */
  template: string;
  /** Field names a client would send (from the page's forms or the OpenAPI body schema). */
  fields: string[];
  /** Values seen in the page's forms (hidden inputs, button values): real intents. */
  known: Record<string, string[]>;
};

/** The portal's routes with an action, from the Remix build's client manifest, with full paths. */
function portalActionRoutes(): string[] {
  const dir = "public/build";
  const manifestFile = fs.readdirSync(dir).filter((f) => /^manifest-.*\.js$/.test(f)).map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (!manifestFile) throw new Error("No Remix manifest in public/build: run `npm run build` first.");
  const source = fs.readFileSync(manifestFile, "utf8");
  const manifest = JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1)) as {
    routes: Record<string, { id: string; parentId?: string; path?: string; index?: boolean; hasAction: boolean }>;
  };
  const fullPath = (id: string): string => {
    const route = manifest.routes[id]!;
    const parent = route.parentId ? fullPath(route.parentId) : "";
    return route.path ? `${parent.replace(/\/$/, "")}/${route.path}` : parent || "/";
  };
  return Object.values(manifest.routes)
    .filter((route) => route.hasAction)
    .map((route) => fullPath(route.id))
    .sort();
}

type OpenApi = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> }; parameters?: Array<{ name: string; in: string }> }>>;
  components?: { schemas?: Record<string, Schema> };
};
type Schema = { $ref?: string; properties?: Record<string, unknown>; allOf?: Schema[]; anyOf?: Schema[]; oneOf?: Schema[] };

function apiOperations(): Array<{ method: string; template: string; fields: string[] }> {
  const doc = JSON.parse(fs.readFileSync("api/openapi.json", "utf8")) as OpenApi;
  const resolve = (schema: Schema | undefined): string[] => {
    if (!schema) return [];
    if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.split("/").pop()!]);
    return [...Object.keys(schema.properties ?? {}), ...[...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap(resolve)];
  };
  const operations: Array<{ method: string; template: string; fields: string[] }> = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const content = operation.requestBody?.content ?? {};
      const schema = content["application/json"]?.schema ?? content["application/x-www-form-urlencoded"]?.schema;
      operations.push({ method: method.toUpperCase(), template, fields: [...new Set(resolve(schema))] });
    }
  }
  return operations;
}

/** Every named control of the forms on a page, with the values it carries (hidden inputs, buttons). */
function formControls(html: string, into: { fields: Set<string>; known: Record<string, Set<string>> }) {
  for (const tag of html.match(/<(input|button|select|textarea)\b[^>]*>/g) ?? []) {
    const name = /\bname="([^"]+)"/.exec(tag)?.[1];
    if (!name) continue;
    into.fields.add(name);
    const value = /\bvalue="([^"]*)"/.exec(tag)?.[1];
    if (value !== undefined && /type="(hidden|submit)"|<button/.test(tag)) (into.known[name] ??= new Set()).add(decodeEntities(value));
  }
}
const decodeEntities = (s: string) => s.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

// ---------------------------------------------------------------------------------------------
// Generated cases

const HOSTILE_STRINGS = [
  "",
  " ",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "toString",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "\"; DROP TABLE users; --",
  "../../../../etc/passwd",
  "%00",
  "\u0000",
  "\uFEFF",
  "\uD800",
  "👩‍👩‍👧‍👦",
  "Ω≈ç√∫˜µ≤≥÷",
  "ﷺ",
  "-1",
  "0",
  "1e309",
  "NaN",
  "9".repeat(40),
  "demo@example.com",
  "DEMO@EXAMPLE.COM ",
  "a@b",
  "@@",
  "http://evil.example/",
  "//evil.example",
  "javascript:alert(1)",
  GOOD_CARD,
  DECLINED_CARD,
  "12 / 30",
  "123456",
  "WELCOME10",
  "google",
  "apple",
  "stripe",
  "bitpay",
  "pm_1",
  "cs_1",
];

const stringValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x", "é", "😀", "%", "\n"), fc.integer({ min: 1_000, max: 60_000 })).map(([c, n]) => c.repeat(n)) },
);
const scalarValue = fc.oneof(
  { weight: 6, arbitrary: stringValue },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1, 7, 2 ** 53, -(2 ** 63), 1e308)) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
/** Any JSON value: scalars, arrays, nested objects (with keys like __proto__). */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalarValue, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("__proto__", "constructor", "0", "a[b]")), tie("value"), { maxKeys: 4 }),
})).value;

const ENCODINGS = [
  "json",
  "form",
  "multipart",
  "json-as-text", // JSON under text/plain
  "form-as-json", // form data labelled JSON
  "json-no-type",
  "malformed-json",
  "xml",
  "empty",
  "oversized",
  "chunked",
  "chunked-oversized",
] as const;
type Encoding = (typeof ENCODINGS)[number];

type CaseDraft = {
  /** Which fields of the target's known ones to send (a subset: missing fields). */
  pick: number[];
  /** Values for them: real values seen on the page, or anything. */
  values: unknown[];
  useKnown: boolean[];
  extra: Record<string, unknown>;
  encoding: Encoding;
  /** Which real or hostile value fills each path parameter. */
  paramChoice: number;
  /** Portal posts: same-origin (the browser's), none, or another site's. */
  origin: "same" | "none" | "cross";
  query: Record<string, string>;
};

const caseDraft: fc.Arbitrary<CaseDraft> = fc.record({
  pick: fc.uniqueArray(fc.nat({ max: 11 }), { maxLength: 8 }),
  values: fc.array(jsonValue, { minLength: 8, maxLength: 8 }),
  useKnown: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), jsonValue, { maxKeys: 3 }) }),
  encoding: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<Encoding>("json", "form", "multipart") },
    { weight: 4, arbitrary: fc.constantFrom<Encoding>(...ENCODINGS) },
  ),
  paramChoice: fc.nat({ max: 100 }),
  origin: fc.oneof({ weight: 8, arbitrary: fc.constant("same" as const) }, { weight: 1, arbitrary: fc.constantFrom("none" as const, "cross" as const) }),
  query: fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }) }),
});

// ---------------------------------------------------------------------------------------------
// Building a request

/** Form fields from a JSON-ish object: nested objects in bracket notation, arrays repeated. */
function formPairs(fields: Record<string, unknown>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const walk = (key: string, value: unknown) => {
    if (Array.isArray(value)) for (const item of value) walk(key, item);
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(`${key}[${k}]`, v);
    else pairs.push([key, value === null || value === undefined ? "" : String(value)]);
  };
  for (const [key, value] of Object.entries(fields)) walk(key, value);
  return pairs;
}

function chunkedBody(text: string, chunks: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const size = Math.max(1, Math.ceil(bytes.length / chunks));
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

type Built = { headers: Record<string, string>; body?: BodyInit; describe: string };

function buildBody(encoding: Encoding, fields: Record<string, unknown>, limit: number): Built {
  const json = () => JSON.stringify(fields);
  const form = () => new URLSearchParams(formPairs(fields)).toString();
  const padded = () => ({ ...fields, padding: "A".repeat(limit + 1024) });
  switch (encoding) {
    case "json":
      return { headers: { "content-type": "application/json" }, body: json(), describe: "json" };
    case "form":
      return { headers: { "content-type": "application/x-www-form-urlencoded" }, body: form(), describe: "form" };
    case "multipart": {
      const data = new FormData();
      for (const [key, value] of formPairs(fields)) data.append(key, value);
      data.append("upload", new Blob(["%PDF-1.4 not really"], { type: "application/pdf" }), "file.pdf");
      return { headers: {}, body: data, describe: "multipart" };
    }
    case "json-as-text":
      return { headers: { "content-type": "text/plain;charset=UTF-8" }, body: json(), describe: "JSON as text/plain" };
    case "form-as-json":
      return { headers: { "content-type": "application/json" }, body: form(), describe: "form labelled JSON" };
    case "json-no-type":
      return { headers: {}, body: new TextEncoder().encode(json()), describe: "JSON without a content type" };
    case "malformed-json":
      return { headers: { "content-type": "application/json" }, body: `${json().slice(0, -1)},"`, describe: "malformed JSON" };
    case "xml":
      return { headers: { "content-type": "application/xml" }, body: `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`, describe: "XML" };
    case "empty":
      return { headers: { "content-type": "application/x-www-form-urlencoded" }, describe: "empty body" };
    case "oversized":
      return { headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(formPairs(padded())).toString(), describe: "oversized form" };
    case "chunked":
      return { headers: { "content-type": "application/x-www-form-urlencoded" }, body: chunkedBody(form(), 3), describe: "chunked form" };
    case "chunked-oversized":
      return {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: chunkedBody(new URLSearchParams(formPairs(padded())).toString(), 16),
        describe: "chunked oversized form",
      };
  }
}

type Answer = { status: number; contentType: string; body: string };

/**
 * Sends one request on its own connection (node:http): a reset is then the server's doing, never a
 * pooled socket that the server closed while idle. A stream body goes out chunked
 * (no Content-Length); any other body with its length, as a browser sends it.
 */
async function sendRaw(url: string, method: string, headers: Record<string, string>, body: BodyInit | undefined): Promise<Answer> {
  let payload: Buffer | ReadableStream<Uint8Array> | undefined;
  const outgoing: Record<string, string> = { ...headers };
  if (body instanceof ReadableStream) {
    payload = body;
    // Node's client frames DELETE bodies only when told to.
    outgoing["transfer-encoding"] = "chunked";
  }
  else if (body !== undefined) {
    // Request encodes FormData (multipart with its boundary), strings and bytes as fetch would.
    const encoded = new Request(url, { method: "POST", body, headers });
    payload = Buffer.from(await encoded.arrayBuffer());
    const type = encoded.headers.get("content-type");
    if (type && !Object.keys(outgoing).some((k) => k.toLowerCase() === "content-type")) outgoing["content-type"] = type;
    outgoing["content-length"] = String(payload.length);
  } else if (method !== "GET") outgoing["content-length"] = "0";
  return new Promise<Answer>((resolve, reject) => {
    // A keep-alive connection of its own, as a browser's: the server may then read and discard a body
    // it refuses early, rather than close the connection under a client that is still sending.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const request = http.request(url, { method, headers: outgoing, agent, timeout: 60_000 }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 2 * 1024 * 1024) chunks.push(chunk);
      });
      response.on("end", () => {
        agent.destroy();
        resolve({ status: response.statusCode ?? 0, contentType: String(response.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") });
      });
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(Object.assign(new Error("no answer within 60 s"), { code: "TIMEOUT" })));
    request.on("error", (error) => {
      agent.destroy();
      reject(error);
    });
    if (payload instanceof ReadableStream) {
      void (async () => {
        try {
          for await (const chunk of payload as unknown as AsyncIterable<Uint8Array>) if (!request.write(chunk)) await new Promise((r) => request.once("drain", r));
          request.end();
        } catch (error) {
          request.destroy(error as Error);
        }
      })();
    } else request.end(payload);
  });
}

// ---------------------------------------------------------------------------------------------
// Checks

/** The message a rejected portal post shows, or null. */
function portalMessage(contentType: string, body: string): string | null {
  if (contentType.includes("application/json")) {
    try {
      const json = JSON.parse(body) as Record<string, unknown>;
      const message = [json.message, json.error, json.serverError, (json.errors as { message?: unknown } | undefined)?.message].find((m) => typeof m === "string" && m.trim());
      return (message as string | undefined) ?? null;
    } catch {
      return null;
    }
  }
  if (contentType.includes("text/html")) {
    const patterns = [
      /class="field-error"[^>]*>\s*([^<\s][^<]*)</,
      /class="form-error"[^>]*>\s*([^<\s][^<]*)</,
      /role="alert"[^>]*>\s*([^<\s][^<]*)</,
      /class="toast toast--(?:error|warning)"[^>]*>\s*([^<\s][^<]*)</,
      /<main class="error-page"><h1>([^<]+)</,
    ];
    for (const pattern of patterns) {
      const found = pattern.exec(body)?.[1];
      if (found) return decodeEntities(found.trim());
    }
    return null;
  }
  return body.trim() ? body.trim().slice(0, 120) : null;
}

function apiMessage(body: string): string | null {
  try {
    const json = JSON.parse(body) as { status?: unknown; message?: unknown };
    return json.status === false && typeof json.message === "string" && json.message.trim() ? json.message : null;
  } catch {
    return null;
  }
}

/** Tables whose content a rejected post must not change, with columns that legitimately move. */
const WATCHED: Record<string, string[]> = {
  users: [],
  devices: [],
  // Any authenticated request, accepted or not, marks its token as used.
  tokens: ["last_used_at"],
  plans: [],
  subscriptions: [],
  coupons: [],
  payment_methods: [],
  transactions: [],
  invoices: [],
  // Wrong codes count toward the 5 tries by design (identity spec); everything else stays.
  verification_codes: ["attempts"],
  mail_outbox: [],
  one_time_tokens: [],
  account_links: [],
  desktop_codes: [],
  crypto_invoices: [],
  webhook_events: [],
  stripe_sandbox_objects: [],
  bitpay_sandbox_invoices: [],
};

function dataChecksum(db: Database.Database): string {
  const hash = createHash("sha1");
  for (const [table, ignored] of Object.entries(WATCHED)) {
    for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).iterate() as Iterable<Record<string, unknown>>) {
      for (const column of ignored) delete row[column];
      hash.update(JSON.stringify(row));
    }
    hash.update(`|${table}|`);
  }
  return hash.digest("hex");
}

// ---------------------------------------------------------------------------------------------

type Credentials = { email: string; password: string; token: string; cookie: string };

async function main() {
  const server = await startQualityServer({
    port: PORT,
    name: "fuzz",
    env: LOOPBACK_LIMITS,
  });
  const base = server.base;
  let exitCode = 1;
  try {
    // A signed-in account with real data behind the ids: a saved card and a paid transaction.
    const password = "fuzz-password-123";
    const freshAccount = async (): Promise<Credentials> => {
      const account = await signUpThroughApi(base, uniqueEmail("fuzz"), password);
      return { ...account, cookie: await portalSignIn(base, account.email, password) };
    };
    let me = await freshAccount();
    const real = await realIds(base, me);

    const portalPaths = portalActionRoutes();
    const targets: Target[] = [];
    for (const template of portalPaths) {
      const into = { fields: new Set<string>(), known: {} as Record<string, Set<string>> };
      for (const cookie of [undefined, me.cookie]) {
        const page = await fetch(`${base}${fillPath(template, 0, real)}`, { headers: cookie ? { cookie } : {}, redirect: "follow" }).catch(() => null);
        if (page?.headers.get("content-type")?.includes("text/html")) formControls(await page.text(), into);
      }
      into.fields.add("intent");
      targets.push({ kind: "portal", method: "POST", template, fields: [...into.fields].sort(), known: Object.fromEntries(Object.entries(into.known).map(([k, v]) => [k, [...v]])) });
    }
    for (const operation of apiOperations()) targets.push({ kind: "api", ...operation, known: {} });
    console.log(`Targets: ${portalPaths.length} portal actions (${portalPaths.join(", ")}), ${targets.length - portalPaths.length} API operations`);

    const drafts = fc.sample(caseDraft, { seed: SEED, numRuns: RUNS });
    const cases = drafts.map((draft, index) => {
      const target = targets[index % targets.length]!;
      const signedIn = Math.floor(index / targets.length) % 2 === 1;
      const label = `#${index} ${target.kind} ${target.method} ${target.template} (${signedIn ? "signed in" : "anonymous"}, ${draft.encoding})`;
      return { index, target, signedIn, draft, label };
    });
    const selected = args.only ? cases.filter((c) => `${c.label} `.includes(args.only!)) : cases;
    if (selected.length === 0) throw new Error(`No case matches --only "${args.only}"`);

    const db = new Database(server.databaseFile, { readonly: true, fileMustExist: true });
    const statuses = new Map<number, number>();
    const failures: Array<{ label: string; problem: string }> = [];
    let accepted = 0;
    let rejected = 0;
    let unattributed = 0;
    const started = Date.now();

    type Outcome = { status: number; problem: string | null; request: string };
    const send = async (c: (typeof cases)[number]): Promise<Outcome> => {
      const { target, draft } = c;
      const fields: Record<string, unknown> = {};
      draft.pick.forEach((i, n) => {
        const name = target.fields[i % Math.max(1, target.fields.length)];
        if (!name) return;
        const known = target.known[name] ?? (name === "email" ? [me.email] : name === "password" ? [me.password] : undefined);
        fields[name] = draft.useKnown[n] && known?.length ? known[draft.paramChoice % known.length] : draft.values[n];
      });
      Object.assign(fields, draft.extra);
      const pathname = fillPath(target.template, draft.paramChoice, real);
      const query = new URLSearchParams(draft.query).toString();
      const url = `${base}${pathname}${query ? `?${query}` : ""}`;
      const headers: Record<string, string> = {};
      let built: Built = { headers: {}, describe: "no body" };
      if (target.method !== "GET") built = buildBody(draft.encoding, fields, target.kind === "portal" ? PORTAL_BODY_LIMIT : API_BODY_LIMIT);
      if (target.kind === "portal") {
        if (draft.origin === "same") headers.origin = base;
        if (draft.origin === "cross") headers.origin = "https://evil.example";
        if (c.signedIn) headers.cookie = me.cookie;
      } else if (c.signedIn) {
        headers.authorization = `Bearer ${me.token}`;
      }
      const request = `${target.method} ${pathname}${query ? `?${query}` : ""} ${built.describe}`;
      let response: Answer;
      try {
        response = await sendRaw(url, target.method, { ...built.headers, ...headers }, built.body);
      } catch (error) {
        return { status: 0, problem: `the request failed: ${(error as Error).message} (${(error as { code?: string }).code ?? ""})`, request };
      }
      const body = response.body;
      const status = response.status;
      if (status >= 500) return { status, problem: `answered ${status}: ${body.slice(0, 200)}`, request };
      if (status >= 400) {
        const isApiEnvelope = target.kind === "api" && (pathname.startsWith("/api/") || pathname === "/payments/apple/charge");
        const message = isApiEnvelope ? apiMessage(body) : portalMessage(response.contentType, body);
        if (!message) {
          if (process.env.FUZZ_DUMP) fs.writeFileSync(path.join(process.env.FUZZ_DUMP, `case-${c.index}.html`), body);
          return { status, problem: `a ${status} without a message: ${body.slice(0, 200)}`, request };
        }
      }
      return { status, problem: null, request };
    };

    const checkAlone = async (c: (typeof cases)[number]) => {
      const before = dataChecksum(db);
      const outcome = await send(c);
      const changed = dataChecksum(db) !== before;
      return { outcome, changed };
    };

    // Batches of CONCURRENCY posts; the data checksum before and after each batch. A batch of rejected
    // posts that changed data is replayed one post at a time to find which one did.
    for (let offset = 0; offset < selected.length; offset += CONCURRENCY) {
      const batch = selected.slice(offset, offset + CONCURRENCY);
      const before = dataChecksum(db);
      const outcomes = await Promise.all(batch.map(send));
      const changed = dataChecksum(db) !== before;
      const rejectedHere: Array<(typeof cases)[number]> = [];
      let acceptedHere = false;
      batch.forEach((c, i) => {
        const outcome = outcomes[i]!;
        statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
        if (outcome.problem) failures.push({ label: c.label, problem: `${outcome.problem} [${outcome.request}]` });
        if (outcome.status >= 400 || outcome.status === 0) {
          rejected++;
          // A refused payment (402) is recorded as 'Payment failed' by design (commerce spec).
          if (outcome.status !== 402) rejectedHere.push(c);
        } else {
          accepted++;
          acceptedHere = true;
        }
      });
      if (changed && rejectedHere.length > 0) {
        let found = false;
        for (const c of acceptedHere || rejectedHere.length > 1 ? rejectedHere : []) {
          const again = await checkAlone(c);
          if (again.changed && again.outcome.status >= 400 && again.outcome.status !== 402) {
            found = true;
            failures.push({ label: c.label, problem: `a rejected post (${again.outcome.status}) changed data [${again.outcome.request}]` });
          }
        }
        if (!acceptedHere && rejectedHere.length === 1) {
          found = true;
          failures.push({ label: rejectedHere[0]!.label, problem: `a rejected post (${outcomes[batch.indexOf(rejectedHere[0]!)]!.status}) changed data` });
        }
        if (!found && !acceptedHere) unattributed++;
      }
      // An accepted post may have signed the account out (logout, terminate devices) or changed it.
      if (acceptedHere) me = await ensureSignedIn(base, me, freshAccount);
      if ((offset / CONCURRENCY) % 250 === 0 && offset > 0) console.log(`  ${offset} posts, ${failures.length} failures, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    db.close();
    const seconds = (Date.now() - started) / 1000;

    await server.stop();
    console.log(`\nFuzz: ${selected.length} posts in ${seconds.toFixed(0)} s (seed ${SEED}, ${CONCURRENCY} at a time)`);
    console.log(`  accepted ${accepted}, rejected ${rejected}${unattributed ? `, ${unattributed} batches changed data that no rejected post reproduced alone (async work of accepted posts)` : ""}`);
    console.log(`  statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? "failed" : s}×${n}`).join(" ")}`);
    if (server.serverErrors.length) console.log(`  server log 5xx (first 10):\n    ${[...server.serverErrors.slice(0, 10), ...server.loggedErrors.slice(0, 10)].join("\n    ")}`);
    if (server.stderrErrors.length) console.log(`  server stderr errors (first 20):\n    ${server.stderrErrors.slice(0, 20).join("\n    ")}`);
    if (failures.length) {
      console.log(`\nFailures (${failures.length}; first 40), each with its replay command:`);
      for (const failure of failures.slice(0, 40)) {
        const index = /^#\d+ /.exec(failure.label)![0];
        console.log(`  ${failure.label}: ${failure.problem}\n    npm run fuzz -- --seed ${SEED} --runs ${RUNS} --only "${index}"`);
      }
    }
    const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
    const checks: Array<[string, boolean]> = [
      [`0 responses of 5xx (${fivexx}; server log ${server.serverErrors.length}) and 0 failed requests (${statuses.get(0) ?? 0})`, fivexx === 0 && server.serverErrors.length === 0 && !statuses.get(0)],
      [`every rejection carries a message, no rejected post changed data (${failures.length} failures)`, failures.length === 0],
      [`no error on the server's stderr (${server.stderrErrors.length})`, server.stderrErrors.length === 0],
    ];
    console.log("\nBars");
    for (const [label, ok] of checks) console.log(`  ${ok ? "PASS" : "FAIL"}  ${label}`);
    exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    await server.stop();
    server.cleanUp();
  }
  process.exit(exitCode);
}

type RealIds = Record<string, string[]>;

/** Path parameters: real values first (the account's card, transaction, invoice), then hostile ones. */
function fillPath(template: string, choice: number, real: RealIds): string {
  return template.replace(/\{(\w+)\}|:(\w+)\??/g, (_m, brace: string | undefined, colon: string | undefined) => {
    const name = (brace ?? colon)!;
    const hostile = ["0", "-1", "abc", "99999999999999999999", "%E2%98%83", "1.5", "%00", "..%2F..%2Fetc", "x".repeat(300)];
    const options = [...(real[name] ?? []), ...hostile];
    // Mostly the real value, so that the handler behind the parameter is reached.
    const value = choice % 3 !== 0 && real[name]?.length ? real[name]![choice % real[name]!.length]! : options[choice % options.length]!;
    return value;
  });
}

async function realIds(base: string, me: Credentials): Promise<RealIds> {
  const api = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${base}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${me.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await response.json().catch(() => ({}))) as { data?: unknown };
  };
  const config = (await api("GET", "/api/payments/config")).data as { publishable_key?: string } | undefined;
  const tokenized = await fetch(`${base}/dev/stripe/v1/payment_methods`, {
    method: "POST",
    headers: { authorization: `Bearer ${config?.publishable_key ?? ""}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ type: "card", "card[number]": digitsOf(GOOD_CARD), "card[exp_month]": "12", "card[exp_year]": String(new Date().getUTCFullYear() + 4), "card[cvc]": "123" }),
  });
  const paymentMethod = ((await tokenized.json().catch(() => ({}))) as { id?: string }).id;
  if (paymentMethod) await api("POST", "/api/payments/card", { paymentMethodId: paymentMethod, planId: 7, type: "new-card", email: me.email, idempotency_key: randomUUID() });
  const cards = await api("GET", "/api/getCurrentcards");
  const transactions = await api("POST", "/api/billing/transactions", {});
  const plan = ((await api("POST", "/api/plans/detail", { planId: 7 })).data as { plan_data?: { discounted_price?: number } } | undefined)?.plan_data;
  const crypto = await api("POST", "/api/payments/crypto/invoice", { planId: 7, amount: String(plan?.discounted_price ?? ""), currency: "USD", email: me.email });
  const real: RealIds = {
    id: [...new Set([...idsIn(cards), ...idsIn(transactions), ...idsIn(crypto)])],
    planId: ["1", "6", "7"],
    paymentGateway: ["stripe", "bitpay", "paypal", "apple", "google"],
    gateway: ["stripe", "bitpay", "paypal"],
    walletPaymentType: ["apple_pay", "google_pay"],
    wallet: ["apple_pay", "google_pay"],
    provider: ["google", "apple"],
    token: [randomUUID()],
    uuid: [randomUUID()],
  };
  console.log(`Real ids for path parameters: ${JSON.stringify(real)}`);
  return real;
}

/** Every id (id, invoiceId, ...) anywhere in an API answer. */
function idsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) idsIn(item, out);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (/^(id|invoiceId|invoice_id)$/.test(key) && (typeof item === "string" || typeof item === "number")) out.push(String(item));
      else idsIn(item, out);
    }
  }
  return out;
}

/** The account's bearer token and portal session still work; if not, sign in again (or use a new account). */
async function ensureSignedIn(base: string, me: Credentials, freshAccount: () => Promise<Credentials>): Promise<Credentials> {
  const apiOk = (await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${me.token}` } })).ok;
  const portal = await fetch(`${base}/billing`, { headers: { cookie: me.cookie }, redirect: "manual" });
  await portal.body?.cancel();
  if (apiOk && portal.status === 200) return me;
  try {
    const login = await fetch(`${base}/api/user/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: me.email, password: me.password }) });
    const token = ((await login.json()) as { data?: { token?: string } }).data?.token;
    if (!token) throw new Error("sign-in refused");
    return { ...me, token: apiOk ? me.token : token, cookie: portal.status === 200 ? me.cookie : await portalSignIn(base, me.email, me.password) };
  } catch {
    return freshAccount();
  }
}

await main();
