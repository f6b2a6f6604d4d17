// What the scripts that drive the built server (bench, bench:ab, lighthouse) share: its environment, waiting for it,
// signing in, and reading what it costs.
import { execSync } from "node:child_process";
import fs from "node:fs";

/** The environment a measured built server runs with: sandbox mode on its own database, no sign-in limit in the way. */
export function measuredServerEnv(port: number, databasePath: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    SANDBOX: "true",
    PORT: String(port),
    DATABASE_URL: databasePath,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SESSION_SECRET: "bench-session-secret-0123456789abcdef012345",
    LOGIN_MAX_FAILURES_PER_IP: "100000",
  };
}

const CLOCK_TICKS_PER_SECOND = Number(execSync("getconf CLK_TCK").toString().trim()) || 100;

/** User + system CPU time a process has used, in ms (Linux /proc); NaN once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The 25th and 75th percentiles (nearest rank). */
export function quartiles(values: number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
  return [at(0.25), at(0.75)];
}

/** Resolves once `${base}/healthz` answers 200; throws after 30 s. */
export async function waitForHealth(base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("The server did not become healthy within 30 s");
}

/**
 * Signs the seeded demo account in through the portal's form; returns the cookies a browser keeps from it
 * (`name=value; name=value`): the session and the device cookie, which a signed-in browser always sends
 * (without it every page would make the device key a browser has only once).
 */
export async function signInDemo(base: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams({ email: "demo@example.com", password: "demo-password" }),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  if (response.status !== 302 || !cookie) throw new Error(`Demo sign-in failed with ${response.status}`);
  return cookie;
}

/** Signs the seeded demo account in at the API (POST /api/user/login); returns its bearer token. */
export async function apiTokenOfDemo(base: string): Promise<string> {
  const response = await fetch(`${base}/api/user/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "demo@example.com", password: "demo-password" }),
  });
  const body = (await response.json()) as { data?: { token?: string } };
  if (!response.ok || !body.data?.token) throw new Error(`Demo sign-in at the API failed with ${response.status}`);
  return body.data.token;
}
