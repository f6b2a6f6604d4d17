import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadApiConfig } from "../../api/platform/config";
import { consoleStyle, createLogger, requestLogging } from "../../api/platform/logger";
import { loadConfig } from "../../server/config";

/** A logger whose JSON lines are kept in memory, parsed. */
function memoryLog(level: Parameters<typeof createLogger>[0] = "info") {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger(level, sink), lines };
}

describe("request logging", () => {
  const { log, lines } = memoryLog();
  let baseUrl = "";
  let close = () => {};
  // The peer here is loopback: trusted in one app (a proxy in TRUST_PROXY), not in the other.
  const app = express();
  const trusted = express.Router();
  const untrusted = express.Router();
  const root = express.Router();
  trusted.use(requestLogging({ logger: consoleStyle(log.child({ name: "api" })), trustsPeer: () => true }));
  untrusted.use(requestLogging({ logger: consoleStyle(log.child({ name: "portal" })), trustsPeer: () => false, quiet: (path) => path === "/untrusted/healthz" }));
  root.use(requestLogging({ logger: consoleStyle(log.child({ name: "portal" })), trustsPeer: () => false }));
  for (const router of [trusted, untrusted, root]) {
    router.all("*", (_req, res) => {
      consoleStyle(log).info("handling it");
      res.status(204).end();
    });
  }
  app.use("/trusted", trusted);
  app.use("/untrusted", untrusted);
  app.use(root);

  beforeAll(async () => {
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  async function get(path: string, requestId?: string) {
    const response = await fetch(baseUrl + path, { headers: requestId ? { "X-Request-Id": requestId } : {} });
    const id = response.headers.get("X-Request-Id") ?? "";
    await expect.poll(() => lines.some((line) => line.reqId === id && typeof line.status === "number")).toBe(true);
    return { id, lines: lines.filter((line) => line.reqId === id) };
  }

  it("keeps a trusted proxy's id, logs one line with it, and tags what is logged meanwhile", async () => {
    const { id, lines: logged } = await get("/trusted/page?token=secret-in-query", "cdn-1234.abc:5");
    expect(id).toBe("cdn-1234.abc:5");
    expect(logged).toEqual([
      expect.objectContaining({ level: "info", msg: "handling it" }),
      expect.objectContaining({ level: "info", name: "api", method: "GET", path: "/trusted/page", status: 204 }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("secret-in-query");
  });

  it("makes a new id when the peer is not trusted, or the id is too long or unsafe", async () => {
    expect((await get("/untrusted/page", "from-the-browser")).id).not.toBe("from-the-browser");
    for (const bad of ["x".repeat(65), "id with spaces", 'quote"d', "-leading-dash"]) {
      const { id } = await get("/trusted/page", bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("redacts the set-password token in the path, and logs health checks at debug only", async () => {
    const { lines: logged } = await get("/generate-password/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG");
    expect(logged.at(-1)).toMatchObject({ path: "/generate-password/[redacted]" });
    expect(JSON.stringify(lines)).not.toContain("abcdefghijklmnopqrstuvwxyz");

    const response = await fetch(`${baseUrl}/untrusted/healthz`);
    const id = response.headers.get("X-Request-Id");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((line) => line.reqId === id && line.status)).toEqual([]);
  });
});

describe("consoleStyle", () => {
  it("formats like console, keeps an error's stack under err, and takes pino's fields form", () => {
    const { log, lines } = memoryLog("debug");
    const logger = consoleStyle(log);
    logger.error("Mail to %s failed:", "a@example.com", new Error("boom"));
    logger.info({ reqId: "r1" }, "GET / 200");
    logger.debug("details", { n: 1 });
    expect(lines[0]).toMatchObject({ level: "error", msg: "Mail to a@example.com failed: boom", err: { type: "Error", message: "boom" } });
    expect(String((lines[0]!.err as { stack: string }).stack)).toContain("logger.test.ts");
    expect(lines[1]).toMatchObject({ level: "info", reqId: "r1", msg: "GET / 200" });
    expect(lines[2]).toMatchObject({ level: "debug", msg: "details { n: 1 }" });
  });

  it("drops what is below LOG_LEVEL", () => {
    const { log, lines } = memoryLog("warn");
    const logger = consoleStyle(log);
    logger.info("not shown");
    logger.warn("shown");
    expect(lines.map((line) => line.msg)).toEqual(["shown"]);
  });
});

describe("LOG_LEVEL", () => {
  const portalEnv = (extra: Record<string, string> = {}) => ({
    NODE_ENV: "test",
    SANDBOX: "true",
    SESSION_SECRET: "unit-session-secret-0123456789abcdef0123456789",
    ...extra,
  });
  // The level the portal's server (server.ts) logs at: the one configuration's.
  const portalLogLevel = (env: Record<string, string>) =>
    loadConfig(env, { generatedSessionSecret: () => "unused" }).api.logLevel;

  it("defaults to info in the API's and the portal's configuration, and takes pino's levels", () => {
    expect(loadApiConfig({ SANDBOX: "true" }).logLevel).toBe("info");
    expect(portalLogLevel(portalEnv())).toBe("info");
    expect(loadApiConfig({ SANDBOX: "true", LOG_LEVEL: "debug" }).logLevel).toBe("debug");
    expect(portalLogLevel(portalEnv({ LOG_LEVEL: "warn" }))).toBe("warn");
  });

  it("refuses anything else, saying what it expects", () => {
    expect(() => loadApiConfig({ SANDBOX: "true", LOG_LEVEL: "loud" })).toThrow("LOG_LEVEL: expected one of silent, fatal, error, warn, info, debug, trace");
    expect(() => portalLogLevel(portalEnv({ LOG_LEVEL: "loud" }))).toThrow(/LOG_LEVEL/);
  });
});
