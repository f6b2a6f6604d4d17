import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  test: {
    environment: "node",
    // Two files at a time per pool (2-core CI).
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Every API file imports the whole API: importing it once per worker instead of once per file more than
    // halves the suite's CPU time (issue 31). Safe for the API files: each suite starts its own API on its
    // own database, and none fakes timers, mocks modules or changes process.env. (Vitest reads the pool's
    // isolation from the root config only.)
    pool: "forks",
    poolOptions: { forks: { isolate: false } },
    projects: [
      { extends: true, test: { name: "api", include: ["tests/api/**/*.test.ts"] } },
      {
        extends: true,
        // The portal's modules keep their configuration (setPortalConfig) and cookies in module state that
        // each unit file sets its own way: a fresh worker per file, threads being the cheaper ones to start.
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], pool: "threads" },
      },
    ],
  },
});
