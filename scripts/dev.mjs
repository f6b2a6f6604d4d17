// `npm run dev`: `remix dev` rebuilds on change, and `tsx watch` restarts server.ts, which the `--dev`
// argument tells that a dev server is there to reload builds from (live reload). That argument, never an
// environment variable a deploy may carry (remix dev's REMIX_DEV_ORIGIN), is what makes a dev server; and
// sandbox mode is SANDBOX=true, which this sets only when nothing is configured, as `npm start` does.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { sandboxWhenNothingConfigured } from "./sandbox-default.mjs";

if (fs.existsSync(".env")) process.loadEnvFile(".env");
sandboxWhenNothingConfigured("npm run dev");

// npm puts node_modules/.bin on the PATH of its scripts; a shell on Windows finds remix.cmd there. Arguments
// after `npm run dev --` go to remix dev (e.g. --port for its live-reload server).
const child = spawn("remix", ["dev", "-c", "tsx watch --clear-screen=false server.ts --dev", "--manual", ...process.argv.slice(2)], {
  stdio: "inherit",
  shell: process.platform === "win32",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
