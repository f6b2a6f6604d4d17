/**
 * `npm test`: every test, stage by stage, stopping at the first stage that fails, and a table of each
 * stage's time at the end (issue 31), so that the next slowdown shows itself. The static checks
 * (typecheck, import rules, lint) read files only and run side by side; every later stage runs alone,
 * since each one loads both cores. `--only NAME[,NAME]` runs just those stages (e.g. `--only static`).
 */
import { spawn } from "node:child_process";

interface Stage {
  name: string;
  /** npm scripts; more than one run side by side. */
  scripts: string[];
}

const STAGES: Stage[] = [
  { name: "static", scripts: ["typecheck", "check:imports", "lint"] },
  { name: "vitest", scripts: ["test:unit"] },
  { name: "build", scripts: ["build"] },
  { name: "playwright", scripts: ["test:e2e"] },
  { name: "pages", scripts: ["test:pages"] },
  // The deploy rehearsal runs the @smoke flows on a fresh PostgreSQL database and checks what they wrote there:
  // the PostgreSQL lane's work (`npm run test:e2e:pg`, one instance, still there to run alone).
  { name: "deploy", scripts: ["test:deploy"] },
  { name: "quality", scripts: ["test:quality"] },
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

const onlyArg = process.argv.indexOf("--only");
const only = onlyArg >= 0 ? new Set((process.argv[onlyArg + 1] ?? "").split(",").filter(Boolean)) : null;
const unknown = only ? [...only].filter((name) => !STAGES.some((stage) => stage.name === name)) : [];
if (unknown.length > 0) {
  console.error(`Unknown stage(s): ${unknown.join(", ")}. Stages: ${STAGES.map((stage) => stage.name).join(", ")}.`);
  process.exit(2);
}

const timings: { name: string; ms: number; result: string }[] = [];
const started = Date.now();
let failed: string | null = null;
for (const stage of STAGES) {
  if (only && !only.has(stage.name)) continue;
  if (failed) {
    timings.push({ name: stage.name, ms: 0, result: "not run" });
    continue;
  }
  console.log(`\n=== ${stage.name}: npm run ${stage.scripts.join(" + ")}`);
  const stageStart = Date.now();
  const side = stage.scripts.length > 1;
  const outcomes = await Promise.all(
    stage.scripts.map(async (script) => {
      const scriptStart = Date.now();
      const outcome = await run(script, side);
      if (side) console.log(`--- ${script} (${seconds(Date.now() - scriptStart)}, exit ${outcome.code})\n${outcome.output.trimEnd()}`);
      return { script, ...outcome };
    }),
  );
  const failing = outcomes.filter((outcome) => outcome.code !== 0);
  timings.push({ name: stage.name, ms: Date.now() - stageStart, result: failing.length ? `FAILED (${failing.map((o) => o.script).join(", ")})` : "ok" });
  if (failing.length) failed = stage.name;
}

console.log("\nStage times");
for (const { name, ms, result } of timings) console.log(`  ${name.padEnd(14)} ${seconds(ms).padStart(7)}  ${result}`);
console.log(`  ${"total".padEnd(14)} ${seconds(Date.now() - started).padStart(7)}`);
if (failed) {
  console.error(`\nnpm test failed in stage '${failed}'.`);
  process.exit(1);
}
