// `npm start`: build when there is no build yet, then serve it (migrations and seed run at boot).
// `npm run api` (--api-only) serves the product API alone, for a split deploy.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

if (fs.existsSync(".env")) process.loadEnvFile(".env");
process.env.NODE_ENV ??= "production";

// `npm start` on a fresh clone runs the whole product on its stand-ins (docs/decisions/019): sandbox
// mode, said at start and on every page. Only when nothing is configured: as soon as one integration
// has a credential, SANDBOX must be said outright, so a half-configured deploy refuses to start instead
// of quietly standing in for what it lacks. The container image runs build/server.js: no default there.
const CREDENTIALS = ["SMTP_URL", "STRIPE_SECRET_KEY", "BITPAY_API_TOKEN", "PAYPAL_CLIENT_ID", "GOOGLE_CLIENT_ID", "APPLE_CLIENT_ID"];
if (!process.env.SANDBOX && !CREDENTIALS.some((name) => process.env[name])) {
  process.env.SANDBOX = "true";
  console.info("npm start: nothing is configured, so this runs in sandbox mode (SANDBOX=true). Set SANDBOX=false for a real deploy.");
}

const apiOnly = process.argv.includes("--api-only");
const entry = apiOnly ? "build/api.js" : "build/server.js";

if (!fs.existsSync(entry) || !fs.existsSync("build/server/index.js")) {
  console.info("No build found: building first (about a minute)...");
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await import(new URL(`../${entry}`, import.meta.url).href);
