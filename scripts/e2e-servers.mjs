// The browser tests' servers, started side by side (playwright.config.ts's one webServer entry). Playwright starts
// its webServer entries one after another, each once the last answered: four built servers took 11-12 s before the
// first test, against about 5 s side by side on two cores (issue 31, docs/decisions/077).
//
// `node scripts/e2e-servers.mjs PORT=DIR ...`: for each, empties DIR, starts `node build/server.js` on PORT with its
// database in DIR/portal.sqlite and its stdout (JSON lines) in DIR/server.log, stderr passed on; the rest of the
// environment is the caller's (playwright.config.ts: sandbox mode, the session secret, the loopback limits). It prints
// READY_LINE once every server answers /healthz, and fails if one exits first. Playwright ends it and its servers
// together (it kills the process group).
import { spawn } from "node:child_process";
import fs from "node:fs";

/** What playwright.config.ts waits for (its webServer's `wait.stdout`). */
const READY_LINE = "e2e servers ready";

const servers = process.argv.slice(2).map((arg) => {
  const [port, dir] = arg.split("=");
  if (!port || !dir || !/^\d+$/.test(port)) throw new Error(`Expected PORT=DIR, got '${arg}'`);
  return { port, dir };
});

const children = servers.map(({ port, dir }) => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const log = fs.openSync(`${dir}/server.log`, "w");
  const child = spawn(process.execPath, ["build/server.js"], {
    env: { ...process.env, PORT: port, DATABASE_URL: `${dir}/portal.sqlite`, PUBLIC_URL: `http://127.0.0.1:${port}` },
    stdio: ["ignore", log, "inherit"],
  });
  fs.closeSync(log);
  child.on("exit", (code, signal) => {
    console.error(`The e2e server on port ${port} exited (${signal ?? `code ${code}`}).`);
    process.exit(1);
  });
  return child;
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    for (const child of children) child.removeAllListeners("exit").kill(signal);
    process.exit(0);
  });
}

/** Resolves once `port` answers /healthz with 200 (asked every 50 ms: the servers start in about 2 s). */
async function healthy(port) {
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

await Promise.all(servers.map(({ port }) => healthy(port)));
console.log(`${READY_LINE}: ${servers.map(({ port }) => port).join(", ")}`);
