import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { createServer } from "node:net";
import { expect, test } from "@playwright/test";
import { exitOf, waitForHealth } from "../support/processes";

// The sandboxes stay out of the production build (docs/decisions/024): `npm run build` bundles them
// apart, as build/sandboxes.js, which the product loads with a dynamic import in sandbox mode only.
// This reads what the build wrote (Playwright runs after `npm run build`), and starts the standalone
// API's bundle without the sandboxes' bundle beside it: production mode must not need it.

const PRODUCT_BUNDLES = ["build/server.js", "build/api.js"];
/** Strings only sandbox code holds: its OpenID provider package, its published keys, its factories. */
const SANDBOX_MARKERS = ["oidc-provider", "sk_test_sandbox", "whsec_sandbox", "createStripeSandbox", "createBitPaySandbox", "createIdentitySandbox"];

/** What a real deploy must bring (nothing is called at start). */
const LIVE_ESSENTIALS = {
  SMTP_URL: "smtp://127.0.0.1:9",
  STRIPE_SECRET_KEY: "sk_test_production_bundle_spec",
  STRIPE_PUBLISHABLE_KEY: "pk_test_production_bundle_spec",
  STRIPE_WEBHOOK_SECRET: "whsec_production_bundle_spec",
  TWO_FACTOR_ENCRYPTION_KEY: "cd".repeat(32),
  SELLER_NAME: "VPN Test GmbH",
  SELLER_ADDRESS: "Teststraße 1\\n10115 Berlin\\nGermany",
  SELLER_VAT_ID: "DE123456789",
};

// Reads files and starts processes of its own, no browser: once (tagged @once: the no-JavaScript project only).

test("the product's bundles hold no sandbox code, and load the sandboxes' bundle by a dynamic import", { tag: "@once" }, () => {
  for (const bundle of PRODUCT_BUNDLES) {
    const code = fs.readFileSync(bundle, "utf8");
    const sources: string[] = JSON.parse(fs.readFileSync(`${bundle}.map`, "utf8")).sources;
    expect(sources.filter((source) => source.includes("api/sandboxes/")), `${bundle}'s sources`).toEqual([]);
    // The loader itself (api/http/sandboxes.ts) is product code: it holds the dynamic import and nothing more.
    expect(sources.some((source) => source.endsWith("api/http/sandboxes.ts")), `${bundle} holds the loader`).toBe(true);
    for (const marker of SANDBOX_MARKERS) expect(code.includes(marker), `${bundle} contains "${marker}"`).toBe(false);
    expect(code).toContain('import("./sandboxes.js")');
  }
  // The control: the sandboxes' bundle exists beside them (the image copies build/ whole) and holds what the others lack.
  const sandboxes = fs.readFileSync("build/sandboxes.js", "utf8");
  for (const marker of SANDBOX_MARKERS) expect(sandboxes, `build/sandboxes.js contains "${marker}"`).toContain(marker);
  expect(sandboxes).toMatch(/from "oidc-provider"/);
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Started = { child: ChildProcess; output: () => string };

function startApiBundle(file: string, dataDir: string, port: number, env: Record<string, string>): Started {
  let output = "";
  const child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", API_PORT: String(port), DATABASE_URL: `${dataDir}/portal.sqlite`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { child, output: () => output };
}

async function stop(started: Started) {
  if (started.child.exitCode !== null || started.child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    started.child.once("exit", () => resolve());
    started.child.kill("SIGTERM");
  });
}



test("without build/sandboxes.js the API starts in production mode, and only sandbox mode asks for it", { tag: "@once" }, async ({}, testInfo) => {
  test.setTimeout(120_000);
  // A folder inside the checkout, so that the bundle's packages resolve from its node_modules.
  const dir = `data/e2e-bundle-${testInfo.workerIndex}-${process.pid}`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync("build/api.js", `${dir}/api.js`);
  try {
    const port = await freePort();
    const live = startApiBundle(`${dir}/api.js`, dir, port, LIVE_ESSENTIALS);
    try {
      await waitForHealth(`http://127.0.0.1:${port}/api/health`, live, "the API");
      expect(live.output()).toContain("Live mode.");
    } finally {
      await stop(live);
    }

    const sandbox = startApiBundle(`${dir}/api.js`, dir, await freePort(), { SANDBOX: "true" });
    try {
      expect(await exitOf(sandbox)).toBe(1);
      expect(sandbox.output()).toContain("sandboxes.js");
    } finally {
      await stop(sandbox);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
