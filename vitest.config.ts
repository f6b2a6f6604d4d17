import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  test: {
    include: ["tests/api/**/*.test.ts", "tests/unit/**/*.test.ts"],
    environment: "node",
    // API suites start real HTTP servers on real databases; keep files isolated, two at a time (2-core CI).
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
