/**
 * `npm test`: every test, stage by stage, stopping at the first stage that fails, and a table of each
 * stage's time at the end (issue 31), so that the next slowdown shows itself. The static checks
 * (typecheck, import rules, lint) read files only and run side by side, beside Vitest; so do the deploy rehearsal and
 * the quality checks, which mostly wait; every other stage runs alone, since each one loads both cores.
 * `--only NAME[,NAME]` runs just those stages (e.g. `--only static`).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { referenceSystemWorkMs, referenceWorkMs } from "./machine-reference";

interface Stage {
  name: string;
  /** npm scripts; more than one run side by side. */
  scripts: string[];
  /** Runs beside the next stage (its output held until it ends), which waits for it before the one after. */
  beside?: boolean;
}

const STAGES: Stage[] = [
  // The static checks take 1.5 of the 2 cores for about 26 s, and Vitest's first files wait on their
  // processes: side by side, the two stages took 93 s against 26 + 106 one after the other (issue 31).
  { name: "static", scripts: ["typecheck", "check:imports", "lint"], beside: true },
  { name: "vitest", scripts: ["test:unit"] },
  { name: "build", scripts: ["build"] },
  // The browser tests and the page check one after the other: side by side (five browser flows, two servers and
  // their Chromiums on two cores) they took 515 s and 981 CPU-s in one run and 580 s and 1109 CPU-s in a clean clone,
  // against 490 s and 894 CPU-s apart: a test that waits longer polls longer (issue 31, docs/decisions/075).
  { name: "playwright", scripts: ["test:e2e"] },
  { name: "pages", scripts: ["test:pages"] },
  // The deploy rehearsal runs the @smoke flows on a fresh PostgreSQL database and checks what they wrote there:
  // the PostgreSQL lane's work (`npm run test:e2e:pg`, one instance, still there to run alone).
  // Beside it, `npm run test:quality`'s three: all four mostly wait (the rehearsal's kill and job phases, the load
  // test's fixed 10 s at 20 users of at most 1 request/s, Lighthouse's simulated page loads), on servers of their
  // own (ports 3680-3683, 3400, 3401, 3402); none judges a timing here (the load test's bars are errors and
  // ledgers, Lighthouse's timings are the bench's).
  { name: "deploy+quality", scripts: ["test:deploy", "load:short", "fuzz:short", "lighthouse:short"] },
];

interface Outcome {
  code: number;
  /** The output, when it was held back to keep side-by-side runs apart. */
  output: string;
}

/** Runs `npm run SCRIPT`; with `hold`, its output is collected and returned instead of streamed. */
function run(script: string, hold: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit" });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", (error) => resolve({ code: 1, output: `${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() }));
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

/** CPU time the whole machine has spent busy (user, nice, system; /proc/stat), in seconds; 0 where unreadable. */
function machineBusySeconds(): number {
  try {
    const [user, nice, system] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 4).map(Number);
    return (user! + nice! + system!) / 100;
  } catch {
    return 0;
  }
}

// Node's on-disk cache of compiled modules (NODE_COMPILE_CACHE, Node 22), for every Node process the stages start:
// the suite starts dozens of them (npm, tsx, Vitest's workers, Playwright's runner and workers, the built servers
// of the browser tests, the page check and the rehearsal), and each compiled the same modules again. A built server
// reached /healthz on 1.9-2.0 s of CPU with the cache against 2.3-2.5 s without (issue 31). The cache is keyed by
// each file's contents.
process.env.NODE_COMPILE_CACHE ??= path.resolve("node_modules/.cache/node-compile-cache");

// The browser tests run as CI runs them (playwright.config.ts): a worker per core on two cores, CI's limits, one
// retry with its trace. Without it a newcomer's `npm test` ran one worker on a 2-core machine and recorded a
// trace of every test (issue 31, docs/decisions/077).
process.env.TEST_WHOLE_SUITE ??= "1";

const onlyArg = process.argv.indexOf("--only");
const only = onlyArg >= 0 ? new Set((process.argv[onlyArg + 1] ?? "").split(",").filter(Boolean)) : null;
const unknown = only ? [...only].filter((name) => !STAGES.some((stage) => stage.name === name)) : [];
if (unknown.length > 0) {
  console.error(`Unknown stage(s): ${unknown.join(", ")}. Stages: ${STAGES.map((stage) => stage.name).join(", ")}.`);
  process.exit(2);
}

const timings: { name: string; ms: number; cpu: number; result: string }[] = [];
const reference = referenceWorkMs();
const systemReference = referenceSystemWorkMs();
const started = Date.now();
let failed: string | null = null;
/** A `beside` stage under way while the next one runs. */
let pending: Promise<void> | null = null;
for (const stage of STAGES) {
  if (only && !only.has(stage.name)) continue;
  if (failed) {
    timings.push({ name: stage.name, ms: 0, cpu: 0, result: "not run" });
    continue;
  }
  const done = runStage(stage);
  if (stage.beside) {
    pending = done;
    continue;
  }
  await done;
  await pending;
  pending = null;
}
await pending;

/** Runs a stage's scripts side by side and records its time and result. */
async function runStage(stage: Stage): Promise<void> {
  console.log(`\n=== ${stage.name}: npm run ${stage.scripts.join(" + ")}${stage.beside ? " (beside the next stage)" : ""}`);
  const stageStart = Date.now();
  const busyAtStart = machineBusySeconds();
  const side = stage.scripts.length > 1 || Boolean(stage.beside);
  const outcomes = await Promise.all(
    stage.scripts.map(async (script) => {
      const scriptStart = Date.now();
      const outcome = await run(script, side);
      if (side) console.log(`--- ${script} (${seconds(Date.now() - scriptStart)}, exit ${outcome.code})\n${outcome.output.trimEnd()}`);
      return { script, ...outcome };
    }),
  );
  const failing = outcomes.filter((outcome) => outcome.code !== 0);
  const result = failing.length ? `FAILED (${failing.map((o) => o.script).join(", ")})` : stage.beside ? "ok (beside the next)" : "ok";
  timings.push({ name: stage.name, ms: Date.now() - stageStart, cpu: machineBusySeconds() - busyAtStart, result });
  if (failing.length) failed ??= stage.name;
}

if (timings.some((timing) => timing.name === "playwright" && timing.result !== "not run")) printSlowestSpecs("data/e2e-report.json");

// Wall time, and the machine's busy CPU time over it (every process: a stage near cores x wall is CPU-bound).
console.log(`\nStage times (${os.cpus().length} cores; reference work ${reference} ms, system work ${systemReference} ms, see scripts/machine-reference.ts)`);
console.log(`  ${"stage".padEnd(14)} ${"wall".padStart(7)} ${"CPU".padStart(8)}`);
for (const { name, ms, cpu, result } of timings) console.log(`  ${name.padEnd(14)} ${seconds(ms).padStart(7)} ${`${cpu.toFixed(0)} s`.padStart(8)}  ${result}`);
console.log(`  ${"total".padEnd(14)} ${seconds(Date.now() - started).padStart(7)}`);
if (failed) {
  console.error(`\nnpm test failed in stage '${failed}'.`);
  process.exit(1);
}

interface ReportSuite {
  file: string;
  specs?: { tests: { results: { duration: number }[] }[] }[];
  suites?: ReportSuite[];
}

/** The spec files that took the most worker time (every project, retries included), from Playwright's JSON report. */
function printSlowestSpecs(reportFile: string) {
  if (!existsSync(reportFile)) return;
  const perFile = new Map<string, number>();
  const walk = (suite: ReportSuite) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests) for (const result of test.results) perFile.set(suite.file, (perFile.get(suite.file) ?? 0) + result.duration);
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of (JSON.parse(readFileSync(reportFile, "utf8")) as { suites: ReportSuite[] }).suites) walk(suite);
  const total = [...perFile.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(`
Slowest browser specs (worker time, ${seconds(total)} in all)`);
  for (const [file, ms] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${file.padEnd(40)} ${seconds(ms).padStart(7)}`);
}

