// `npm start`: build when there is no build yet, then serve it (migrations and seed run at boot).
// `npm run api` (--api-only) serves the product API alone, for a split deploy.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { sandboxWhenNothingConfigured } from "./sandbox-default.mjs";

if (fs.existsSync(".env")) process.loadEnvFile(".env");
process.env.NODE_ENV ??= "production";

sandboxWhenNothingConfigured("npm start");

const apiOnly = process.argv.includes("--api-only");
const entry = apiOnly ? "build/api.js" : "build/server.js";

if (!fs.existsSync(entry) || !fs.existsSync("build/server/index.js")) {
  console.info("No build found: building first (about a minute)...");
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await import(new URL(`../${entry}`, import.meta.url).href);
