// `npm run test:html`: the W3C Nu Html Checker (vnu.jar, from the `vnu-jar` package, on the machine's Java 17+)
// over every page of the portal in every state a user meets it: visitor, signed in as a Free and as a Premium
// account, a buyer after a card payment, with errors shown (forms posted with bad input), with JavaScript off
// (the HTML the server answers) and on (the DOM once React has hydrated it and the network is quiet).
//
// It drives the built server (sandbox mode, a fresh SQLite database in a temp dir, like load and fuzz) with
// Chromium (/usr/bin/chromium), a few browser contexts at once, each flow with JavaScript off and on. The flows
// are tests/support/page-states.ts, which the axe spec (tests/e2e/a11y.spec.ts) walks too; accounts are made the
// way the e2e specs make them (tests/support/e2e.ts). Each page's HTML is written under
// data/html-check/ (kept after the run, so a reported line can be read), then vnu.jar runs ONCE over all of them
// (one JVM start: it is the slow part) and the run fails listing every error, and every warning that is not
// one of the accepted classes below, with its page, state, line and message. It builds nothing: run
// `npm run build` first. HTML_CHECK_PORT (default 3450) is the server's port; JAVA (default `java`) the runtime;
// HTML_CHECK_TIMES=1 prints each flow's time.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "@playwright/test";
import { type Mode, openPage, type PageFlow, pageFlows, type Visit } from "../tests/support/page-states";
import { LOOPBACK_LIMITS, startQualityServer } from "./quality-server";

const PORT = Number(process.env.HTML_CHECK_PORT ?? 3450);
const OUT_DIR = "data/html-check";
const CHROME_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/**
 * Browser contexts at work at once (HTML_CHECK_BROWSERS). A flow mostly waits (page loads, the server's
 * answers): four keep 2 cores busy; the whole run takes about 90 s of CPU. Three on CI, whose 2 cores
 * also run the server, so that no page waits out the portal's API timeout.
 */
const BROWSERS = Number(process.env.HTML_CHECK_BROWSERS ?? (process.env.CI ? 3 : 4));
/** HTML_CHECK_ONLY=text: only the flows whose role and name contain it (while working on a page). */
const ONLY = process.env.HTML_CHECK_ONLY;
const VNU_JAR = String(createRequire(import.meta.url)("vnu-jar"));

/**
 * Warnings read and left, each class with why; every other warning fails the run like an error. None at
 * present: the only class found ('Section lacks heading', on the /login and /billing tab panels) was fixed
 * (the panels are divs: the active tab names them). Info messages are not asked for (--skip-info-messages):
 * they are 'Trailing slash on void elements', React writing `<meta ... />`, which is valid HTML.
 */
const ACCEPTED_WARNINGS: Array<{ message: RegExp; why: string }> = [];

type Snapshot = { mode: Mode; label: string; url: string; file: string };

const snapshots: Snapshot[] = [];
let counter = 0;

function save(mode: Mode, label: string, url: string, html: string) {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 80);
  const file = path.join(OUT_DIR, mode, `${String(++counter).padStart(3, "0")}-${slug}.html`);
  fs.writeFileSync(file, html);
  snapshots.push({ mode, label, url, file: path.resolve(file) });
}

/** One browser page in one mode, and what it takes to record its HTML as the user has it now. */
class HtmlVisit implements Visit {
  private lastDocument: Promise<{ url: string; html: string }> | null = null;
  private inFlight = 0;

  constructor(
    readonly page: Page,
    readonly mode: Mode,
    private readonly role: string,
  ) {
    page.on("response", (response) => {
      const request = response.request();
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
      if (response.status() >= 300 && response.status() < 400) return;
      this.lastDocument = response.text().then((html) => ({ url: response.url(), html }));
    });
    page.on("request", () => this.inFlight++);
    page.on("requestfinished", () => this.inFlight--);
    page.on("requestfailed", () => this.inFlight--);
  }

  get js() {
    return this.mode === "js";
  }

  async open(pathname: string) {
    await openPage(this.page, pathname, this.js);
  }

  /** With JavaScript, waits until React has hydrated the page (a portal page: the sandbox's own pages have no React). */
  private async hydrated() {
    if (!this.js) return;
    if (await this.page.evaluate(() => "__remixContext" in window)) await this.page.locator("html[data-hydrated]").waitFor();
  }

  /** Records the page as the user has it: the server's HTML without JavaScript, the hydrated DOM with it. */
  async snap(label: string) {
    const name = `${this.role}: ${label}`;
    if (!this.js) {
      if (!this.lastDocument) throw new Error(`No document was loaded before ${name}`);
      const { url, html } = await this.lastDocument;
      save(this.mode, name, url, html);
      return;
    }
    await this.hydrated();
    await this.quiet();
    save(this.mode, name, this.page.url(), await this.page.content());
  }

  /** Records an answer the browser did not load as a document (a plain POST sent from the test). */
  async record(label: string, url: string, html: string) {
    save(this.mode, `${this.role}: ${label}`, url, html);
  }

  /** Opens `pathname` and records it. */
  async visit(pathname: string, label = pathname) {
    await this.open(pathname);
    await this.snap(label);
  }

  /** Waits until no request of the page has been running for 200 ms (lazy code, fetchers). */
  private async quiet() {
    const deadline = Date.now() + 10_000;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      if (this.inFlight > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= 200) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Every flow in both modes, BROWSERS at a time (the JavaScript-on flows, slower, first). */
async function runFlows(browser: Browser, base: string, failures: string[]) {
  const tasks = (["js", "no-js"] as const).flatMap((mode) =>
    pageFlows(base)
      .filter((flow) => !flow.only || flow.only === mode)
      .filter((flow) => !ONLY || `${flow.role} ${flow.name}`.includes(ONLY))
      .map((flow) => ({ mode, flow })),
  );
  for (const mode of ["js", "no-js"]) fs.mkdirSync(path.join(OUT_DIR, mode), { recursive: true });
  let next = 0;
  await Promise.all(
    Array.from({ length: BROWSERS }, async () => {
      while (next < tasks.length) {
        const { mode, flow } = tasks[next++]!;
        await runFlow(browser, base, mode, flow, failures);
      }
    }),
  );
}

/**
 * Runs a flow in a fresh context. A flow that breaks is run once more, from the start with new accounts,
 * and the run says so: a page that did not load under load (a 503 while two cores also run Chromium)
 * is not what this check judges, but a flow that breaks twice is a failure.
 */
async function runFlow(browser: Browser, base: string, mode: Mode, flow: PageFlow, failures: string[]) {
  const label = `${mode} ${flow.role} "${flow.name}"`;
  for (let attempt = 1; ; attempt++) {
    const context = await browser.newContext({ baseURL: base, javaScriptEnabled: mode === "js", viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    const started = Date.now();
    try {
      await flow.run(new HtmlVisit(await context.newPage(), mode, flow.role), context);
      if (process.env.HTML_CHECK_TIMES) console.log(`  ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    } catch (error) {
      const message = (error as Error).message.split("\n").slice(0, 6).join("\n");
      if (attempt === 1) {
        console.log(`flow retried once: ${label}: ${message}`);
        continue;
      }
      failures.push(`${label}: ${message}`);
      return;
    } finally {
      await context.close();
    }
  }
}

type VnuMessage = { type: string; subType?: string; url?: string; lastLine?: number; firstColumn?: number; lastColumn?: number; message: string; extract?: string };

/** vnu.jar once over every file: its JSON messages. */
async function runVnu(files: string[]): Promise<VnuMessage[]> {
  const java = process.env.JAVA ?? "java";
  const args = ["-jar", VNU_JAR, "--format", "json", "--stdout", "--skip-info-messages", "--exit-zero-always", ...files];
  const child = spawn(java, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", (error) =>
      reject(new Error(`Could not run ${java} (${error.message}): install a Java 17+ runtime (apt-get install -y default-jre-headless)`)),
    );
    child.once("exit", resolve);
  });
  if (code !== 0) throw new Error(`vnu.jar exited with ${code}`);
  return (JSON.parse(out) as { messages: VnuMessage[] }).messages;
}

async function main() {
  const started = Date.now();
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  const server = await startQualityServer({ port: PORT, name: "html-check", env: LOOPBACK_LIMITS });
  // The flows make accounts in the server's database (tests/support/e2e.ts reads it from E2E_DATABASE_URL).
  process.env.E2E_DATABASE_URL = server.databaseFile;
  const failures: string[] = [];
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROME_PATH,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update"],
    });
    await runFlows(browser, server.base, failures);
  } finally {
    await browser?.close();
    await server.stop();
    server.cleanUp();
  }
  const collected = Date.now();
  console.log(`Collected ${snapshots.length} pages in ${((collected - started) / 1000).toFixed(0)} s; checking them with vnu.jar...`);

  const messages = await runVnu(snapshots.map((snapshot) => snapshot.file));
  const byFile = new Map(snapshots.map((snapshot) => [`file:${snapshot.file}`, snapshot]));
  const problems: string[] = [];
  const accepted = new Map<string, number>();
  for (const message of messages) {
    const snapshot = message.url ? byFile.get(message.url) : undefined;
    const where = snapshot ? `${snapshot.mode === "js" ? "JavaScript on" : "JavaScript off"}, ${snapshot.label} (${path.relative(process.cwd(), snapshot.file)}` : `(${message.url ?? "?"}`;
    const line = `${where}:${message.lastLine ?? "?"}:${message.firstColumn ?? message.lastColumn ?? "?"})`;
    const isWarning = message.type === "info" && message.subType === "warning";
    if (isWarning) {
      const rule = ACCEPTED_WARNINGS.find((candidate) => candidate.message.test(message.message));
      if (rule) {
        accepted.set(rule.why, (accepted.get(rule.why) ?? 0) + 1);
        continue;
      }
    }
    const kind = isWarning ? "warning" : message.type === "error" ? "error" : `${message.type}${message.subType ? ` ${message.subType}` : ""}`;
    problems.push(`${kind}: ${line}\n  ${message.message}${message.extract ? `\n  in: ${message.extract.replace(/\s+/g, " ").trim()}` : ""}`);
  }
  for (const problem of problems) console.log(`\n${problem}`);
  for (const [why, count] of accepted) console.log(`\n(${count} accepted warning(s): ${why})`);
  for (const failure of failures) console.log(`\nflow failed: ${failure}`);
  const modes = (["no-js", "js"] as const).map((mode) => `${snapshots.filter((s) => s.mode === mode).length} ${mode}`).join(", ");
  console.log(
    `\n${snapshots.length} pages (${modes}); ${problems.length} problem(s), ${failures.length} failed flow(s); ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s in all (vnu.jar ${((Date.now() - collected) / 1000).toFixed(0)} s). HTML kept in ${OUT_DIR}/.`,
  );
  if (server.serverErrors.length) console.log(`Server answered 5xx:\n${server.serverErrors.join("\n")}`);
  if (server.stderrErrors.length) console.log(`Server errors:\n${server.stderrErrors.join("\n")}`);
  process.exitCode = problems.length || failures.length || server.serverErrors.length || server.stderrErrors.length ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
