// Shared by `npm run load` and `npm run fuzz`: the built server (build/server.js) in production mode on a
// fresh SQLite database in a temp dir, sandbox integrations, with its log watched for 5xx answers and
// errors. Accounts and portal sessions for them: tests/support/accounts.ts.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

export type QualityServer = {
  base: string;
  databaseFile: string;
  /** Request-log lines (JSON, pino) whose status was 5xx. */
  serverErrors: string[];
  /** stdout lines logged at level error or fatal (an API error's stack): why a 5xx above happened. */
  loggedErrors: string[];
  /** stderr lines that report an error (the sandbox banner and other warnings are not errors). */
  stderrErrors: string[];
  /** Stops the server and waits for it to exit; the database file stays until `cleanUp`. */
  stop: () => Promise<void>;
  cleanUp: () => void;
};

const BANNER = /^$|SESSION_SECRET is not set|ExperimentalWarning|--trace-warnings/;
const ERROR_LINE = /error|exception|unhandled|fatal|EADDRINUSE|ECONN|\bat .+:\d+:\d+\)?$/i;

/**
 * The per-address and per-email limits raised: all of a script's traffic comes from 127.0.0.1 (as in
 * playwright.config.ts). The per-account payment limit stays.
 */
export const LOOPBACK_LIMITS: Record<string, string> = {
  LOGIN_MAX_FAILURES_PER_IP: "1000000",
  LOGIN_MAX_FAILURES_PER_EMAIL: "1000000",
  CODE_MAX_PER_IP_PER_HOUR: "1000000",
  CODE_MAX_PER_EMAIL_PER_HOUR: "1000000",
  DESKTOP_CODE_MAX_PER_IP: "1000000",
  COUPON_MAX_ATTEMPTS_PER_IP: "1000000",
  CRYPTO_INVOICE_MAX_PER_IP_PER_HOUR: "1000000",
  SUPPORT_MAX_PER_IP_PER_HOUR: "1000000",
};

/**
 * Whether a line of the server's stdout is a request logged with a 5xx status. In production the log is
 * JSON lines (pino: `{"level":30,...,"method":"GET","path":"/x","status":500,"ms":3,"msg":"GET /x 500 3ms"}`);
 * any other line (not JSON, or a log line without a status) is not a request's.
 */
export function isServerErrorLine(line: string): boolean {
  if (!line.startsWith("{")) return false;
  try {
    const entry = JSON.parse(line) as { status?: unknown };
    return typeof entry.status === "number" && entry.status >= 500;
  } catch {
    return false;
  }
}

/** Whether a line of the server's stdout is a JSON log entry at level error or fatal. */
export function isLoggedErrorLine(line: string): boolean {
  if (!line.startsWith("{")) return false;
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    return level === "error" || level === "fatal" || (typeof level === "number" && level >= 50);
  } catch {
    return false;
  }
}

export async function startQualityServer(options: { port: number; env?: Record<string, string>; name: string }): Promise<QualityServer> {
  if (!fs.existsSync("build/server.js")) throw new Error("build/server.js is missing: run `npm run build` first.");
  const base = `http://127.0.0.1:${options.port}`;
  // Something else on the port would answer the health check and take the traffic meant for our server.
  const occupied = await fetch(`${base}/healthz`).then(
    () => true,
    () => false,
  );
  if (occupied) throw new Error(`Port ${options.port} is already in use: choose another (LOAD_PORT / FUZZ_PORT).`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `portal-${options.name}-`));
  const databaseFile = path.join(dataDir, "portal.sqlite");
  const server: ChildProcess = spawn(process.execPath, ["build/server.js"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      SANDBOX: "true",
      PORT: String(options.port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseFile,
      PUBLIC_URL: base,
      API_URL: "",
      SESSION_SECRET: `${options.name}-session-secret-0123456789abcdef0123456789`,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const serverErrors: string[] = [];
  const loggedErrors: string[] = [];
  const stderrErrors: string[] = [];
  readline.createInterface({ input: server.stdout! }).on("line", (line) => {
    if (isServerErrorLine(line)) serverErrors.push(line);
    else if (isLoggedErrorLine(line)) loggedErrors.push(line);
  });
  readline.createInterface({ input: server.stderr! }).on("line", (line) => {
    if (!BANNER.test(line.trim()) && ERROR_LINE.test(line)) stderrErrors.push(line);
  });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  let running = true;
  void exited.then(() => {
    running = false;
  });

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running) throw new Error(`The server exited while starting:\n${stderrErrors.join("\n")}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      server.kill("SIGTERM");
      throw new Error("The server did not become healthy within 60 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  return {
    base,
    databaseFile,
    serverErrors,
    loggedErrors,
    stderrErrors,
    async stop() {
      if (!running) return;
      server.kill("SIGTERM");
      await exited;
    },
    cleanUp() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `work` over `items` with at most `limit` running at once. */
export async function inBatches<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

/** p-th percentile (0..100) of a list of numbers, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
