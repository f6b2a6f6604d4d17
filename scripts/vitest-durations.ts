/**
 * `npx tsx scripts/vitest-durations.ts`: writes tests/vitest-durations.json from the durations of the last
 * `vitest run` on this machine (Vitest's own cache, node_modules/.vite/vitest/.../results.json), the files of at
 * least a second, longest first. vitest.config.ts starts the longest files first in a clean clone, which has no
 * cache of its own (issue 31, docs/decisions/069). Stale numbers only change the order, never a result.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const CACHE = "node_modules/.vite/vitest";
const [dir] = readdirSync(CACHE);
if (!dir) throw new Error(`No Vitest results in ${CACHE}: run \`npx vitest run\` first.`);
const { results } = JSON.parse(readFileSync(path.join(CACHE, dir, "results.json"), "utf8")) as {
  results: [string, { duration: number }][];
};
const durations = Object.fromEntries(
  results
    .filter(([, result]) => result.duration >= 1000)
    .sort((a, b) => b[1].duration - a[1].duration)
    .map(([file, result]) => [file, Math.round(result.duration / 100) * 100]),
);
writeFileSync("tests/vitest-durations.json", `${JSON.stringify(durations, null, 2)}\n`);
console.log(`tests/vitest-durations.json: ${Object.keys(durations).length} files of a second or more.`);
