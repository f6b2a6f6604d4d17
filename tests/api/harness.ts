/**
 * Test harness for the product API: a fresh database per test file (per describe block), the API on
 * an ephemeral loopback port, real HTTP with fetch.
 *
 *   describe.each(databases())("login ($name)", (kind) => {
 *     const t = useApi(kind, { env: { LOGIN_MAX_FAILURES_PER_EMAIL: "3" } });
 *     it("...", async () => { const res = await t.post("/api/user/login", { json: {...} }); });
 *   });
 *
 * SQLite always (a fresh file in os.tmpdir()). PostgreSQL too, when TEST_DATABASE_URL is set, for the
 * suites that exercise what differs on it (a fresh `api_test_<random>` database created through that
 * connection and dropped afterwards): `databases({ postgres: "why" })`. TEST_POSTGRES=all runs every
 * suite on it as well.
 */
import { randomBytes } from "node:crypto";
import { copyFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, inject } from "vitest";
import { type Api, createApi } from "../../api/http/app";
import { type ApiConfig, loadApiConfig } from "../../api/platform/config";
import type { AnyRoute } from "../../api/http/contract/route";
import type { Database } from "../../api/platform/db";
import { adminQuery, dropSqliteFile, postgresDatabaseUrl, sqliteFile } from "./template-databases";
import { PasswordHasher, productPasswords } from "../../api/identity/passwords";
import { documentedRoutes } from "../../api/http/routes";
import { insertUser } from "../support/accounts";
import { TestClock } from "../support/clock";
import { ContractChecker, type Exchange } from "./contract-check";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseKind {
  name: "sqlite" | "postgres";
  /** An empty database. */
  create(): Promise<TestDatabase>;
  /**
   * A database with every product migration applied, as an API's start leaves it: a copy of the template the
   * run migrated once (tests/api/global-setup.ts). The API's start still runs the migrator, which then finds
   * nothing to do. Migrating a new SQLite file took 66-92 ms of CPU; an API's start on a new PostgreSQL
   * database 0.66-0.76 s, against 0.2-0.4 s on SQLite (issue 31).
   */
  createMigrated(): Promise<TestDatabase>;
}

const sqlite: DatabaseKind = {
  name: "sqlite",
  async create() {
    const file = sqliteFile("test");
    return { url: file, drop: async () => dropSqliteFile(file) };
  },
  async createMigrated() {
    const file = sqliteFile("test");
    copyFileSync(inject("sqliteTemplate"), file);
    return { url: file, drop: async () => dropSqliteFile(file) };
  },
};

function postgres(adminUrl: string): DatabaseKind {
  async function create(template: string | null): Promise<TestDatabase> {
    const name = `api_test_${randomBytes(6).toString("hex")}`;
    await adminQuery(adminUrl, template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
    return {
      url: postgresDatabaseUrl(adminUrl, name),
      drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  return {
    name: "postgres",
    create: () => create(null),
    // The run's template (tests/api/global-setup.ts makes it whenever TEST_DATABASE_URL is set).
    createMigrated: () => create(inject("postgresTemplate")),
  };
}

export interface DatabaseChoice {
  /**
   * Why the suite runs on PostgreSQL too (when TEST_DATABASE_URL is set): what it exercises that differs
   * there — real concurrent transactions, row locks, claims, migrations, dialect branches. Without it
   * the suite runs on SQLite only.
   */
  postgres?: string;
}

/** The databases to run a suite against: SQLite, and PostgreSQL when the suite says why it needs it. */
export function databases(choice: DatabaseChoice = {}): DatabaseKind[] {
  const pgUrl = process.env.TEST_DATABASE_URL?.trim();
  const everywhere = process.env.TEST_POSTGRES?.trim() === "all";
  return pgUrl && (choice.postgres?.trim() || everywhere) ? [sqlite, postgres(pgUrl)] : [sqlite];
}

/** Collects log lines instead of printing them. */
export class MemoryLogger {
  readonly lines: string[] = [];
  info = (...args: unknown[]) => void this.lines.push(args.map(String).join(" "));
  warn = (...args: unknown[]) => void this.lines.push(args.map(String).join(" "));
  error = (...args: unknown[]) => void this.lines.push(args.map(String).join(" "));
}

export interface RequestOptions {
  json?: unknown;
  form?: Record<string, string>;
  /** A raw body, sent as is (set content-type in headers). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
  /** Skip the contract check: the path is deliberately answered by something other than the API. */
  notTheApi?: boolean;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (any: tests inspect it freely), or undefined when the body is not JSON. */
  body: any;
}

export interface TestApi {
  kind: DatabaseKind["name"];
  baseUrl: string;
  api: Api;
  db: Database;
  config: ApiConfig;
  clock: TestClock;
  /** The API's password hasher (TEST_PASSWORDS unless the suite asked for the product's). */
  passwords: PasswordHasher;
  logger: MemoryLogger;
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  get(path: string, opts?: RequestOptions): Promise<TestResponse>;
  post(path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Signs in and returns the token (fails the test when the sign-in fails). */
  login(email: string, password: string, headers?: Record<string, string>): Promise<string>;
  /** Inserts a verified account (tests/support/accounts.ts); answers its id. */
  createUser(user: { email: string; password?: string | null; name?: string; language?: "en" | "de" | "fr" | "es" }): Promise<number>;
  /** GET /dev/mailbox.json (optionally ?to=EMAIL): the sandbox outbox, newest first. */
  mailbox(to?: string): Promise<MailboxEntry[]>;
  /** The code in the newest email to `to` (fails unless its text has exactly one 6-digit run). */
  latestCode(to: string): Promise<string>;
  close(): Promise<void>;
}

export interface MailboxEntry {
  to: string;
  subject: string;
  text: string;
  sentAt: string;
  /** Only on an email with a Reply-To (a contact-form message). */
  replyTo?: string;
}

/** The one run of six digits in an email's text (throws when there is not exactly one). */
export function codeIn(text: string): string {
  const matches = text.match(/\b\d{6}\b/g) ?? [];
  if (matches.length !== 1) throw new Error(`expected exactly one 6-digit code, found ${matches.length}`);
  return matches[0]!;
}

/** What a real deploy must bring outside sandbox mode (docs/decisions/019); nothing here is called at start. */
export const LIVE_ESSENTIALS = {
  SMTP_URL: "smtp://127.0.0.1:9",
  STRIPE_SECRET_KEY: "sk_test_123",
  STRIPE_PUBLISHABLE_KEY: "pk_test_123",
  STRIPE_WEBHOOK_SECRET: "whsec_123",
  TWO_FACTOR_ENCRYPTION_KEY: "ab".repeat(32),
  SELLER_NAME: "VPN Test GmbH",
  SELLER_ADDRESS: "Teststraße 1\\n10115 Berlin\\nGermany",
  SELLER_VAT_ID: "DE123456789",
};

export interface StartOptions {
  /** Extra environment for loadApiConfig (DATABASE_URL is set by the harness). */
  env?: Record<string, string>;
  /** Use this database instead of a fresh one (it is not dropped on close). */
  databaseUrl?: string;
  /** The product's argon2id cost instead of TEST_PASSWORDS': for what times a password check. */
  productPasswords?: boolean;
}

/**
 * argon2id at a far lower cost than the product's (1 MiB and 1 iteration: about 1 ms a hash here, against 29 ms
 * at OWASP's minimum). The API's files sign in some 1,400 times and hash some 200 passwords: at the product's
 * cost that was a fifth of their CPU time (docs/decisions/069). What a password check does is the same at any
 * cost; what it costs is checked at the product's: the enumeration timing (security.test.ts) and the re-hash of
 * a cheaper hash at sign-in (passwords.test.ts).
 */
export const TEST_PASSWORDS = new PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

/** The declared route answering METHOD PATH (query string ignored), if any. */
export function routeFor(method: string, path: string): AnyRoute | undefined {
  const pathname = new URL(path, "http://x").pathname;
  return documentedRoutes.find(
    (r) =>
      r.method === method.toLowerCase() &&
      new RegExp(`^${r.path.replace(/[.]/g, "\\.").replace(/\{\w+\}/g, "[^/]+")}$`).test(pathname),
  );
}

/** Exchanges the harness checked against the OpenAPI document. */
export const contractChecks = { count: 0 };

let checker: ContractChecker | undefined;

/**
 * Every exchange through the harness is checked against api/openapi.json (tests/api/contract-check.ts):
 * the answer's status, content type, headers and body, errors included, and the request when the
 * API accepted it. A violation throws, failing the test at the request that broke the contract.
 */
export function checkContract(exchange: Exchange): void {
  checker ??= ContractChecker.fromFile();
  const violations = checker.check(exchange);
  if (violations.length) throw new Error(`The API contract (api/openapi.json) is broken:\n${violations.join("\n")}`);
  contractChecks.count++;
}

export async function request(baseUrl: string, method: string, path: string, opts: RequestOptions = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers["content-type"] ??= "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  } else if (opts.raw !== undefined) {
    body = opts.raw;
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const answer = { status: res.status, headers: res.headers, text, body: parsed as any };
  // A followed redirect answered another request (GET of the Location): nothing of this one's to check.
  if (!opts.notTheApi && !res.redirected) {
    checkContract({
      method,
      path,
      requestHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      requestBody: body,
      status: res.status,
      responseHeaders: res.headers,
      responseText: text,
    });
  }
  return answer;
}

export async function listen(handler: Parameters<typeof createServer>[1], host = "127.0.0.1") {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function startApi(kind: DatabaseKind, opts: StartOptions = {}): Promise<TestApi> {
  const database = opts.databaseUrl ? { url: opts.databaseUrl, drop: async () => {} } : await kind.createMigrated();
  // Sandbox mode unless a test says otherwise (SANDBOX: "" for a live start).
  const config = loadApiConfig({ DATABASE_URL: database.url, SANDBOX: "true", ...opts.env });
  const clock = new TestClock();
  const logger = new MemoryLogger();
  const passwords = opts.productPasswords ? productPasswords : TEST_PASSWORDS;
  const api = await createApi({ config, clock, logger, passwords });
  const http = await listen(api.app);
  const baseUrl = `http://127.0.0.1:${http.port}`;
  const t: TestApi = {
    kind: kind.name,
    baseUrl,
    api,
    db: api.db,
    config,
    clock,
    passwords,
    logger,
    request: (method, path, o) => request(baseUrl, method, path, o),
    get: (path, o) => request(baseUrl, "GET", path, o),
    post: (path, o) => request(baseUrl, "POST", path, o),
    async login(email, password, headers) {
      const res = await request(baseUrl, "POST", "/api/user/login", { json: { email, password }, headers });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
      return res.body.data.token as string;
    },
    createUser: (user) => insertUser(api.db, user, passwords),
    async mailbox(to) {
      const res = await request(baseUrl, "GET", `/dev/mailbox.json${to ? `?to=${encodeURIComponent(to)}` : ""}`);
      if (res.status !== 200) throw new Error(`mailbox failed: ${res.status} ${res.text}`);
      return res.body as MailboxEntry[];
    },
    async latestCode(to) {
      const [mail] = await t.mailbox(to);
      if (!mail) throw new Error(`no email to ${to}`);
      return codeIn(mail.text);
    },
    async close() {
      try {
        await http.close();
        await api.close().catch(() => undefined);
      } finally {
        await database.drop();
      }
    },
  };
  return t;
}

/**
 * Starts the API before the tests of the enclosing describe block and stops it after them.
 * Returns an object whose fields are filled in by beforeAll.
 */
export function useApi(kind: DatabaseKind, opts: StartOptions = {}): TestApi {
  const holder = {} as TestApi;
  beforeAll(async () => {
    Object.assign(holder, await startApi(kind, opts));
  });
  afterAll(async () => {
    await holder.close?.();
  });
  return holder;
}
