import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  test: {
    environment: "node",
    // Two files at a time (2-core CI). Forks: threads measured no cheaper here (issue 31).
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts"],
          // Every API file imports the whole API; importing it once per worker instead of once per file
          // more than halves the suite's CPU time. Safe: each suite starts its own API on its own database,
          // and no API test fakes timers, mocks modules or changes process.env.
          isolate: false,
        },
      },
      {
        extends: true,
        // The portal's modules keep their configuration (setPortalConfig) and cookies in module state
        // that each unit file sets its own way: a fresh module graph per file.
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"] },
      },
    ],
  },
});
