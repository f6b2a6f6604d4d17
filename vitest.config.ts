import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Milliseconds a file took when tests/vitest-durations.json was written (scripts/vitest-durations.ts). */
const KNOWN_DURATIONS: Record<string, number> = JSON.parse(readFileSync(new URL("./tests/vitest-durations.json", import.meta.url), "utf8"));

/**
 * The longest files first, so that the last ones to start are short and both workers end together: by this
 * machine's last run (Vitest's cache) when there is one, else by tests/vitest-durations.json, which lists the
 * files of a second or more; a file neither knows (a new one, or one of the many quick ones, a few seconds in
 * all) goes first, as in Vitest's own order. Without a cache Vitest orders by file size, which left small slow
 * files (faults-restart.test.ts starts processes) to the end: without a cache the run took 116-120 s and 205-212
 * CPU-s, with this order 102-111 s and 177-194 CPU-s, with the cache 98-107 s and 174-188 CPU-s (issue 31,
 * docs/decisions/069). Stale durations only change the order.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const duration = (file: TestSpecification) => {
      const key = `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`;
      return this.ctx.cache.getFileTestResults(key)?.duration ?? KNOWN_DURATIONS[key] ?? Number.POSITIVE_INFINITY;
    };
    // Two files neither knows (Infinity - Infinity) keep their order.
    return [...files].sort((a, b) => duration(b) - duration(a) || 0);
  }
}

export default defineConfig({
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  test: {
    environment: "node",
    // Two files at a time per pool (2-core CI).
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Every API file imports the whole API: importing it once per worker instead of once per file more than
    // halves the suite's CPU time (issue 31). Safe for the API files: each suite starts its own API on its
    // own database, and none fakes timers, mocks modules or changes process.env. (Vitest reads the pool's
    // isolation from the root config only.)
    pool: "forks",
    poolOptions: { forks: { isolate: false } },
    projects: [
      // The API files' template databases (SQLite, and PostgreSQL with TEST_DATABASE_URL), migrated once per run
      // (tests/api/global-setup.ts).
      { extends: true, test: { name: "api", include: ["tests/api/**/*.test.ts"], globalSetup: ["tests/api/global-setup.ts"] } },
      {
        extends: true,
        // The portal's modules keep their configuration (setPortalConfig) and cookies in module state that
        // each unit file sets its own way: a fresh worker per file, threads being the cheaper ones to start.
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], pool: "threads" },
      },
    ],
  },
});
