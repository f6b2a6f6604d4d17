import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { describe, expect, it } from "vitest";
import { consoleStyle, createLogger, requestLogging } from "../../api/platform/logger";
import { isLoggedErrorLine, isServerErrorLine } from "../../scripts/quality-server";

// The quality scripts (load, fuzz, page-check) fail on a 5xx in the server's log: the filter must read the
// lines the server really writes (JSON, pino), not a plain-text form it no longer has.
describe("the quality server's 5xx filter", () => {
  it("reports a request the server's own request logging wrote with a 5xx status, and no other", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const log = createLogger("info", sink);
    const app = express();
    app.use(requestLogging({ logger: consoleStyle(log.child({ name: "portal" })), trustsPeer: () => false }));
    app.get("/broken", (_req, res) => void res.status(500).end());
    app.get("/unavailable", (_req, res) => void res.status(503).end());
    app.get("/fine", (_req, res) => void res.status(200).end());
    app.get("/missing", (_req, res) => void res.status(404).end());
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ["/broken", "/unavailable", "/fine", "/missing"]) await fetch(base + path);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      server.close();
    }
    consoleStyle(log).error("something failed with status 500");
    const requestLines = lines.filter((line) => (JSON.parse(line) as { path?: string }).path);
    expect(requestLines).toHaveLength(4);
    const reported = lines.filter(isServerErrorLine).map((line) => (JSON.parse(line) as { path: string }).path);
    expect(reported).toEqual(["/broken", "/unavailable"]);
  });

  it("passes over lines that are not JSON or carry no number status", () => {
    expect(isServerErrorLine("GET /x 500 3ms")).toBe(false);
    expect(isServerErrorLine("{not json")).toBe(false);
    expect(isServerErrorLine('{"level":50,"msg":"status 500"}')).toBe(false);
    expect(isServerErrorLine('{"status":"500"}')).toBe(false);
    expect(isServerErrorLine('{"status":502,"msg":"GET / 502 1ms"}')).toBe(true);
  });

  it("keeps the error the API logged beside its 5xx, so a failed run says why", () => {
    expect(isLoggedErrorLine('{"level":"error","name":"api","msg":"API error on POST /api/user/register-user: SqliteError"}')).toBe(true);
    expect(isLoggedErrorLine('{"level":50,"msg":"boom"}')).toBe(true);
    expect(isLoggedErrorLine('{"level":"info","status":500}')).toBe(false);
    expect(isLoggedErrorLine("error: not json")).toBe(false);
  });
});
