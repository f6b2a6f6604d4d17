// `npm run bench:ab -- [REF]`: what a change is worth in the server's CPU per request, against REF (a commit,
// a branch; default HEAD). It builds REF in a temporary git worktree (with this checkout's node_modules) and
// this working tree, starts both built servers side by side (sandbox mode, fresh SQLite databases), and
// measures each route on both in interleaved 1 s rounds, the order of the two flipping every round. Each
// server's CPU is read from /proc, so the load generator's share does not count.
//
// It prints each route's median CPU per request on REF and on the working tree, and the median of the
// rounds' pairs (working tree / REF) with their middle half. `npm run bench` judges the bars, but on a
// machine whose speed drifts its ratios move by several points from run to run (docs/decisions/078 and 080).
// Two servers measured turn about see the same machine. Run it with no change (REF = HEAD, a clean tree) to
// see the noise: on decision 080's machine two identical builds read 99-101 % on the API call and 92-110 %
// on the pages, so a change of a few per cent shows on the API call and only a larger one on a page.
//
// BENCH_AB_ROUNDS (default 12), BENCH_AB_PORT (default 3310, and the next port), BENCH_CONNECTIONS (10).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { apiTokenOfDemo, measuredServerEnv, median, processCpuMs, quartiles, signInDemo, waitForHealth } from "./built-server";

const REF = process.argv[2] ?? "HEAD";
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 12);
const PORT = Number(process.env.BENCH_AB_PORT ?? 3310);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARM_UP_SECONDS = 3;
const ROOT = path.resolve(import.meta.dirname, "..");

type Server = { name: string; pid: number; base: string; cookie: string; token: string; stop: () => Promise<void> };
type Route = { name: string; target: (server: Server) => { url: string; headers: Record<string, string> } };

/** The routes `npm run bench` judges or breaks down: the floor, /login, the signed-in checkout and its API call, the signed-in home. */
const ROUTES: Route[] = [
  { name: "floor (not-found page)", target: (s) => ({ url: `${s.base}/bench-floor`, headers: {} }) },
  { name: "/login", target: (s) => ({ url: `${s.base}/login`, headers: {} }) },
  { name: "/subscription/payment/6 (signed in)", target: (s) => ({ url: `${s.base}/subscription/payment/6`, headers: { cookie: s.cookie } }) },
  { name: "  its API call", target: (s) => ({ url: `${s.base}/api/account/checkout?plan_id=6`, headers: { authorization: `Bearer ${s.token}` } }) },
  { name: "/ (signed in)", target: (s) => ({ url: `${s.base}/`, headers: { cookie: s.cookie } }) },
];

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

async function main() {
  const sha = git("rev-parse", "--verify", `${REF}^{commit}`);
  const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
  const worktree = fs.mkdtempSync(path.join(os.tmpdir(), "portal-ab-"));
  const servers: Server[] = [];
  try {
    // REF, built as `npm run build` builds it, with this checkout's packages.
    git("worktree", "add", "--detach", worktree, sha);
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(worktree, "node_modules"));
    const built = spawnSync("npm", ["run", "build"], { cwd: worktree, stdio: ["ignore", "ignore", "inherit"] });
    if (built.status !== 0) throw new Error(`npm run build of ${REF} failed`);

    console.log(`A/B of the server's CPU per request: A = ${REF} (${sha.slice(0, 7)}), B = this working tree${dirty ? " (with uncommitted changes)" : ""}`);
    servers.push(await startServer("A", worktree, PORT), await startServer("B", ROOT, PORT + 1));
    for (const route of ROUTES) for (const server of servers) await measure(server, route, WARM_UP_SECONDS);
    const perRequest = new Map<string, { a: number[]; b: number[] }>(ROUTES.map((route) => [route.name, { a: [], b: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of ROUTES) {
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const server of order) perRequest.get(route.name)![server.name === "A" ? "a" : "b"].push(await measure(server, route, 1));
      }
    }
    console.log(`\n${CONNECTIONS} connections, ${ROUNDS} rounds of 1 s per route and server, medians (CPU ms per request)`);
    console.log(`  ${"route".padEnd(38)} ${"A".padStart(7)} ${"B".padStart(7)}   B / A (middle half of the rounds)`);
    for (const route of ROUTES) {
      const { a, b } = perRequest.get(route.name)!;
      const pairs = a.map((value, round) => b[round]! / value);
      const [low, high] = quartiles(pairs);
      const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
      console.log(
        `  ${route.name.padEnd(38)} ${median(a).toFixed(3).padStart(7)} ${median(b).toFixed(3).padStart(7)}   ${percent(median(pairs))} (${percent(low)}-${percent(high)})`,
      );
    }
  } finally {
    for (const server of servers) await server.stop();
    spawnSync("git", ["worktree", "remove", "--force", worktree], { cwd: ROOT, stdio: "ignore" });
    fs.rmSync(worktree, { recursive: true, force: true });
  }
}

/** A built server of `root` on `port`, as `npm run bench` starts its own, signed in once as the demo account. */
async function startServer(name: string, root: string, port: number): Promise<Server> {
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "portal-ab-data-"));
  const child = spawn(process.execPath, [path.join(root, "build/server.js")], {
    env: measuredServerEnv(port, path.join(dataDir, "ab.sqlite")),
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(base);
    return { name, pid: child.pid ?? 0, base, cookie: await signInDemo(base), token: await apiTokenOfDemo(base), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The server's own CPU per request (ms) over `seconds` of load on the route. */
async function measure(server: Server, route: Route, seconds: number): Promise<number> {
  const before = processCpuMs(server.pid);
  const result = await autocannon({ ...route.target(server), connections: CONNECTIONS, duration: seconds });
  if (result.non2xx > 0 && !route.name.startsWith("floor")) throw new Error(`${route.name} on ${server.name}: ${result.non2xx} answers were not 2xx`);
  return (processCpuMs(server.pid) - before) / Math.max(1, result.requests.total);
}

await main();
