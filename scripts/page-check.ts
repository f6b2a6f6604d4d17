// `npm run test:pages` (alias `npm run test:html`): one walk through every page of the portal in every state a
// user meets it — visitor, signed in as a Free and as a Premium account, a buyer after a card payment, with
// errors shown (forms posted with bad input), narrow screens with the drawer, with JavaScript off and on — and
// two checkers on each state the walk reaches:
//
// - the W3C Nu Html Checker (vnu.jar, from the `vnu-jar` package, on the machine's Java 17+) on the HTML as the
//   user has it: the server's answer without JavaScript, the DOM once React has hydrated it and the network is
//   quiet with it. Each page's HTML is written under data/page-check/ (kept after the run, so that a reported
//   line can be read); vnu.jar runs ONCE over all of them at the end (one JVM start: it is the slow part).
//   Errors fail the run, and so does every warning that is not one of the accepted classes below.
// - axe-core (issue 11) with the rules it runs by default (WCAG 2.x A and AA and its best practices:
//   landmarks, heading order, one h1, colour contrast, ...): with JavaScript, on the live page; without, on
//   the static rendering described at `staticScan`. Any violation fails the run.
// - the page's width (issue 21): on the same page as axe, the state is laid out at 320, 390 and 1280 px wide
//   (text cut by its own box counts too, issue 33);
//   a document wider than the screen at any of them (sideways scrolling of the whole page, content cut off on a
//   phone) fails the run, naming what sticks out. Tables scroll inside their own box.
//
// The walk was taken twice before, once by the HTML check and once by the axe spec (tests/e2e/a11y.spec.ts,
// about 19 worker-minutes of CI's Playwright run); one walk feeding both costs about a third of the CPU of the
// two (docs/decisions/031). The flows are
// tests/support/page-states.ts; accounts are made the way the e2e specs make them (tests/support/e2e.ts).
//
// It drives the built server (sandbox mode, a fresh SQLite database in a temp dir, like load and fuzz) with
// Chromium (tests/support/chromium.ts), a few flows at once; each lane hands its browser context and page from flow to
// flow (cookies cleared between: `FlowPage`) and keeps one script-enabled page for the JavaScript-off scans.
// A flow that breaks is run once more from the start, in a new context; what it found the first time is
// dropped. The run fails listing every vnu.jar problem and every axe violation with
// its state (mode, role, label), rule and place, and every flow that broke twice. It builds nothing: run
// `npm run build` first. PAGE_CHECK_PORT (default 3450) is the server's port; JAVA (default `java`) the
// runtime; PAGE_CHECK_TIMES=1 prints each flow's time and where the lanes' time went; PAGE_CHECK_ONLY=text runs only the flows whose role
// and name contain it, or one of several texts separated by | (while working on a page: e.g. PAGE_CHECK_ONLY="3-D
// Secure|PayPal purchase"); PAGE_CHECK_STATES=file writes the states reached, one a line.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, devices, type Frame, type Page, type Response } from "@playwright/test";
import type { AxeResults, RunOptions } from "axe-core";
import { type Mode, openPage, type PageFlow, pageFlows, type SnapOptions, type Visit } from "../tests/support/page-states";
import { BROWSER_TEST_ARGS, chromiumPath } from "../tests/support/chromium";
import { LOOPBACK_LIMITS, startQualityServer } from "./quality-server";

const PORT = Number(process.env.PAGE_CHECK_PORT ?? 3450);
const OUT_DIR = "data/page-check";
const CHROME_PATH = chromiumPath();
/**
 * Flows at work at once (PAGE_CHECK_BROWSERS). A flow waits (page loads, the server's answers) as much as it
 * computes (axe in the browser): three keep 2 cores, which also run the server, busy without a page waiting out
 * the portal's API timeout (a fourth lane there cost CPU and saved no time, docs/decisions/068); four on a
 * machine with more cores. By cores, not by CI: a newcomer's `npm test` on a 2-core machine is CI's run.
 */
const LANES = Number(process.env.PAGE_CHECK_BROWSERS ?? (os.availableParallelism() <= 2 ? 3 : 4));
const ONLY = process.env.PAGE_CHECK_ONLY;
const VNU_JAR = String(createRequire(import.meta.url)("vnu-jar"));
/** axe-core's browser bundle, the one @axe-core/playwright injects (its own dependency). */
const AXE_SOURCE = (createRequire(createRequire(import.meta.url).resolve("@axe-core/playwright"))("axe-core") as { source: string }).source;
/** As the Playwright specs see the portal (playwright.config.ts): a desktop Chrome. */
const DESKTOP = devices["Desktop Chrome"];

/**
 * vnu.jar warnings read and left, each class with why; every other warning fails the run like an error. None
 * at present: the only class found ('Section lacks heading', on the /login and /billing tab panels) was fixed
 * (the panels are divs: the active tab names them). Info messages are not asked for (--skip-info-messages):
 * they are 'Trailing slash on void elements', React writing `<meta ... />`, which is valid HTML.
 */
const ACCEPTED_WARNINGS: Array<{ message: RegExp; why: string }> = [];

/** The screen widths each state is laid out at: no page may be wider than the screen (issue 21). */
const WIDTHS = [320, 390, 1280];

/** One state the walk reached: its HTML (for vnu.jar), what axe found on it and the widths it overflows. */
type State = { mode: Mode; label: string; url: string; html: string; violations: string[]; overflows: string[] };
type Snapshot = Omit<State, "html"> & { file: string };

const snapshots: Snapshot[] = [];

function save(states: State[]) {
  for (const state of states) {
    const slug = state.label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 80);
    const file = path.join(OUT_DIR, state.mode, `${String(snapshots.length + 1).padStart(3, "0")}-${slug}.html`);
    fs.writeFileSync(file, state.html);
    snapshots.push({
      mode: state.mode,
      label: state.label,
      url: state.url,
      violations: state.violations,
      overflows: state.overflows,
      file: path.resolve(file),
    });
  }
}

/** Milliseconds spent in axe scans (with PAGE_CHECK_TIMES: the walk's share of them). */
let axeMs = 0;
/** Milliseconds spent loading the JavaScript-off renderings into the scan pages. */
let staticLoadMs = 0;
/** Lane-milliseconds by phase, summed over the lanes (printed with PAGE_CHECK_TIMES). */
const phaseMs = new Map<string, number>();
async function timed<T>(phase: string, work: Promise<T> | (() => Promise<T>)): Promise<T> {
  const started = Date.now();
  try {
    return await (typeof work === "function" ? work() : work);
  } finally {
    phaseMs.set(phase, (phaseMs.get(phase) ?? 0) + Date.now() - started);
  }
}

/** axe with its default rules on `target` as it is now, after what `options` asks: its violations, one line per element. */
async function axe(target: Page, options: SnapOptions): Promise<string[]> {
  const started = Date.now();
  try {
    return await axeScan(target, options);
  } finally {
    axeMs += Date.now() - started;
  }
}

async function axeScan(target: Page, options: SnapOptions): Promise<string[]> {
  if (options.openDetails) await openAllDetails(target);
  await options.prepare?.(target);
  // axe.run in the page itself, as @axe-core/playwright's legacy mode runs it (its default runs each frame
  // apart and joins the parts in a new blank page per scan): axe in every frame, and the page's run takes the
  // frames' results in, so the 3-D Secure dialog's frame (the sandbox's challenge page, same origin) is
  // checked with its page. Unlike AxeBuilder, which evaluates axe's 0.5 MB twice per scan (as long as the run
  // itself), axe is put in a document once: a state reached without a new document (a dialog, a client-side
  // navigation) is scanned by the axe already there. Every rule runs: none is turned off for any state. Only
  // the violations are asked for in full (the passes' nodes are the bulk of a result).
  await timed("axe: inject", injectAxe(target));
  const runOptions: RunOptions = { resultTypes: ["violations"] };
  const outcome = await timed(
    "axe: run",
    target.evaluate(
      (options) =>
        (window as unknown as { axe: { run: (context: Document, options: RunOptions) => Promise<AxeResults> } }).axe
          .run(document, options)
          .then((results) => ({ error: null, violations: results.violations }))
          .catch((error: Error) => ({ error: error.message, violations: [] })),
      runOptions,
    ),
  );
  if (outcome.error) throw new Error(`axe: ${outcome.error}`);
  return outcome.violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id} (${violation.impact}): ${violation.help} at ${node.target.join(" ")}`),
  );
}

/** Puts axe in every frame of `target` that lacks it: the main frame must take it, a frame that cannot is left (as AxeBuilder does). */
async function injectAxe(target: Page): Promise<void> {
  for (const frame of target.frames()) {
    const main = frame === target.mainFrame();
    try {
      await withinLimit(injectInto(frame), main ? 15_000 : 1_000);
    } catch (error) {
      if (main) throw error;
    }
  }
}

async function injectInto(frame: Frame): Promise<void> {
  if (await frame.evaluate(() => typeof (window as { axe?: { run?: unknown } }).axe?.run === "function")) return;
  await frame.evaluate(AXE_SCRIPT);
}

/** axe, set up as @axe-core/playwright sets it up: what is put in a document before its scan. */
const AXE_SCRIPT = `${AXE_SOURCE}
;axe.configure({ allowedOrigins: ["<same_origin>"], branding: { application: "playwright" } });`;

async function withinLimit<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`took more than ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds spent laying states out at WIDTHS. */
let widthMs = 0;

/**
 * Lays `target` out at each of WIDTHS (its height kept) and answers, for each width the document is wider than
 * the screen at, how wide it is and the first elements that stick out; the viewport is put back after. The
 * width it is at is measured first, without a resize (each resize lays the page out again).
 */
async function overflows(target: Page): Promise<string[]> {
  const started = Date.now();
  const original = target.viewportSize();
  const found = new Map<number, string>();
  let current = original?.width;
  try {
    const order = WIDTHS.includes(current ?? 0) ? [current ?? 0, ...WIDTHS.filter((width) => width !== current)] : WIDTHS;
    for (const width of order) {
      if (current !== width) await target.setViewportSize({ width, height: original?.height ?? 800 });
      current = width;
      const measured = await target.evaluate(() => {
        const viewport = document.documentElement.clientWidth;
        const pageWidth = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
        const widest: string[] = [];
        // Text cut by its own box (issue 33): a read-only field whose value is wider than it (a key to copy), or
        // an element that hides its overflow with its own text running past its edge (a long address in a narrow
        // cell). Editable fields scroll with the caret, and the checkout's disabled 'Email' (the spec's) is left:
        // both are a browser's ordinary single-line field.
        const clipped: string[] = [];
        for (const element of Array.from(document.body.querySelectorAll("*"))) {
          if (clipped.length === 3) break;
          if (!(element instanceof HTMLElement) || element.clientWidth <= 1 || !element.checkVisibility()) continue;
          const field = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement;
          if (field && (!(element as HTMLInputElement).readOnly || (element as HTMLInputElement).disabled)) continue;
          const style = getComputedStyle(element);
          if (!field && !["hidden", "clip"].includes(style.overflowX) && style.textOverflow !== "ellipsis") continue;
          const own = field
            ? (element as HTMLInputElement | HTMLTextAreaElement).value.trim()
            : Array.from(element.childNodes, (node) => (node.nodeType === Node.TEXT_NODE ? node.textContent : "")).join("").trim();
          if (own && element.scrollWidth > element.clientWidth + 1) clipped.push(`${element.tagName.toLowerCase()} "${own.slice(0, 40)}" cut at ${element.clientWidth} px`);
        }
        if (pageWidth <= viewport) return { viewport, pageWidth, widest, clipped };
        for (const element of Array.from(document.body.querySelectorAll("*"))) {
          const box = element.getBoundingClientRect();
          if (box.width === 0 || box.right <= viewport + 0.5) continue;
          // What sticks out itself: not an ancestor of it, nor what a scroll box holds (that scrolls in its box).
          if (Array.from(element.children).some((child) => child.getBoundingClientRect().right > viewport + 0.5)) continue;
          let scrolled = false;
          for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
            if (getComputedStyle(parent).overflowX !== "visible") scrolled = true;
          }
          if (scrolled) continue;
          const classes = Array.from(element.classList, (name) => `.${name}`).join("");
          const text = (element.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
          widest.push(`${element.tagName.toLowerCase()}${classes}${text ? ` "${text}"` : ""} to ${Math.round(box.right)} px`);
          if (widest.length === 3) break;
        }
        return { viewport, pageWidth, widest, clipped };
      });
      const problems: string[] = [];
      if (measured.pageWidth > measured.viewport) {
        problems.push(`${measured.pageWidth} px wide on a ${width} px screen${measured.widest.length ? `: ${measured.widest.join("; ")}` : ""}`);
      }
      if (measured.clipped.length) problems.push(`text cut by its box on a ${width} px screen: ${measured.clipped.join("; ")}`);
      if (problems.length) found.set(width, problems.join("; "));
    }
  } finally {
    if (original && current !== original.width) await target.setViewportSize(original);
    widthMs += Date.now() - started;
  }
  return WIDTHS.flatMap((width) => found.get(width) ?? []);
}

async function openAllDetails(page: Page) {
  // An exclusive accordion (<details name>) keeps one open: drop the grouping to open them all.
  await page.locator("details").evaluateAll((items) =>
    items.forEach((item) => {
      item.removeAttribute("name");
      (item as HTMLDetailsElement).open = true;
    }),
  );
}

/**
 * A lane's script-enabled page for the JavaScript-off scans. axe is script injected into the page, and
 * Playwright evaluates nothing in a page whose context has JavaScript disabled (AxeBuilder.analyze() and
 * page.evaluate() hang, even after re-enabling scripts through CDP). So the JavaScript-off flow keeps the HTML
 * of the last document the server answered, and this page shows that HTML as a JavaScript-off browser does:
 * its <script> elements removed and its <noscript> contents unwrapped (a browser with scripting off parses
 * them as markup), at the same URL (so that its stylesheet applies and colour contrast is real); only axe
 * runs in it. One page for the whole run: its stylesheets and fonts come from the cache after the first.
 *
 * The first rendering is loaded as a document served at its URL; each next one at the same origin replaces
 * the document's content in place (the URL set first, then document.open/write/close, waiting for its
 * stylesheets, images and fonts as a load does). The same markup at the same URL makes the same rendering,
 * and the page keeps its window, so axe, put in it once, stays: a new document per scan cost a load and
 * axe's 0.5 MB evaluated again, about a third of each scan.
 */
class StaticScanner {
  private page: Page | null = null;
  /** The origin of the document the page holds (a rendering at another origin is loaded anew). */
  private origin: string | null = null;
  /** The document to answer at each URL the page is sent to next. */
  private readonly documents = new Map<string, string>();

  constructor(private readonly context: BrowserContext) {}

  private async scanPage(): Promise<Page> {
    if (this.page) return this.page;
    const page = await this.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.route(
      (url) => this.documents.has(url.href),
      (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: this.documents.get(route.request().url()) ?? "" }),
    );
    this.page = page;
    return page;
  }

  /** Drops the scanner page (a new one is made for the next scan). */
  async reset(): Promise<void> {
    const page = this.page;
    this.page = null;
    this.origin = null;
    this.documents.clear();
    if (page) await settleWithin(page.close(), CLOSE_LIMIT_MS);
  }

  async scan(
    url: string,
    html: string,
    viewport: { width: number; height: number } | null,
    options: SnapOptions = {},
  ): Promise<{ violations: string[]; overflows: string[] }> {
    const page = await this.scanPage();
    if (viewport) await page.setViewportSize(viewport);
    const rendering = asWithoutJavaScript(html);
    const origin = new URL(url).origin;
    const inPlace = this.origin === origin;
    this.documents.set(url, rendering);
    try {
      const loading = Date.now();
      if (inPlace) {
        await page.evaluate((address) => history.replaceState(null, "", address), url);
        await page.setContent(rendering);
      } else {
        this.origin = null;
        await page.goto(url);
        this.origin = origin;
      }
      staticLoadMs += Date.now() - loading;
      const violations = await timed("no-js: axe", axe(page, options));
      return { violations, overflows: await timed("no-js: widths", overflows(page)) };
    } finally {
      this.documents.delete(url);
    }
  }
}

/** What a browser with scripting disabled makes of the server's HTML: no scripts, <noscript> as markup. */
function asWithoutJavaScript(html: string): string {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "")
    .replace(/<\/?noscript>/gi, "");
}

/** One browser page in one mode, and what it takes to check a state as the user has it now. */
class CheckVisit implements Visit {
  /** What this attempt at the flow reached, kept only if the attempt is the one that counts. */
  readonly states: State[] = [];
  private lastDocument: Promise<{ url: string; html: string }> | null = null;
  private inFlight = 0;
  private readonly onResponse = (response: Response) => {
    const request = response.request();
    if (!request.isNavigationRequest() || request.frame() !== this.page.mainFrame()) return;
    if (response.status() >= 300 && response.status() < 400) return;
    const document = response.text().then((html) => ({ url: response.url(), html }));
    // Read only when a state is checked: a body lost with its closed page must not end the run unhandled.
    document.catch(() => undefined);
    this.lastDocument = document;
  };
  /** Requests started and the time the last one ended (for `quiet`). */
  private requests = 0;
  private lastEnded = 0;
  private readonly onRequest = () => {
    this.inFlight++;
    this.requests++;
  };
  private readonly onRequestDone = () => {
    this.inFlight--;
    this.lastEnded = Date.now();
  };

  constructor(
    readonly page: Page,
    readonly mode: Mode,
    private readonly role: string,
    private readonly scanner: StaticScanner,
  ) {
    page.on("response", this.onResponse);
    page.on("request", this.onRequest);
    page.on("requestfinished", this.onRequestDone);
    page.on("requestfailed", this.onRequestDone);
  }

  /** Stops following the page (the lane's next flow takes it over). */
  detach() {
    this.page.off("response", this.onResponse);
    this.page.off("request", this.onRequest);
    this.page.off("requestfinished", this.onRequestDone);
    this.page.off("requestfailed", this.onRequestDone);
  }

  get js() {
    return this.mode === "js";
  }

  async open(pathname: string) {
    await openPage(this.page, pathname, this.js);
  }

  /**
   * Checks the page as the user has it: without JavaScript, the server's HTML (vnu.jar) and its static
   * rendering (axe); with it, the hydrated DOM once the network is quiet (vnu.jar), then the live page (axe).
   * The HTML is taken before `options` open anything.
   */
  async snap(label: string, options: SnapOptions = {}) {
    const name = `${this.role}: ${label}`;
    if (!this.js) {
      if (!this.lastDocument) throw new Error(`No document was loaded before ${name}`);
      const { url, html } = await this.lastDocument;
      this.states.push({ mode: this.mode, label: name, url, html, ...(await timed("no-js: static scan", this.scanner.scan(url, html, this.page.viewportSize(), options))) });
      return;
    }
    await timed("js: hydrated", this.hydrated());
    await timed("js: quiet", this.quiet());
    const html = await timed("js: content", this.page.content());
    const violations = await timed("js: axe", axe(this.page, options));
    this.states.push({ mode: this.mode, label: name, url: this.page.url(), html, violations, overflows: await timed("js: widths", overflows(this.page)) });
  }

  /** Checks an answer the browser did not load as a document (a plain POST sent from the test). */
  async record(label: string, url: string, html: string) {
    const scanned = await this.scanner.scan(url, html, this.page.viewportSize());
    this.states.push({ mode: this.mode, label: `${this.role}: ${label}`, url, html, ...scanned });
  }

  /** Opens `pathname` and checks it with its closed sections open. */
  async visit(pathname: string, label = pathname) {
    await this.open(pathname);
    await this.snap(label, { openDetails: true });
  }

  /** With JavaScript, waits until React has hydrated the page (a portal page: the sandbox's own pages have no React). */
  private async hydrated() {
    // Asked once the document has loaded: asked during a navigation, the evaluation's context is destroyed.
    await this.page.waitForLoadState("load");
    if (await this.isPortalPage()) await this.page.locator("html[data-hydrated]").waitFor();
  }

  /**
   * Whether the page is the portal's. A document navigation that starts just after "load" destroys the
   * evaluation's context (seen once in a fresh-clone run, on the checkout's 'Verify Your Email'): then it
   * asks again, once, of the document that navigation loaded; a flow that really broke still fails its
   * next step.
   */
  private async isPortalPage(): Promise<boolean> {
    const ask = () => this.page.evaluate(() => "__remixContext" in window);
    try {
      return await ask();
    } catch (error) {
      if (!String(error).includes("Execution context was destroyed")) throw error;
      console.log(`page check: a navigation during the hydration check on ${this.page.url()}; asked again once it loaded`);
      await this.page.waitForLoadState("load");
      return ask();
    }
  }

  /**
   * Waits until the page has no request running (lazy code, fetchers) and none starts while its main thread
   * goes idle (what the last answers set off has run by then), at least 50 ms after the last one ended. The
   * portal starts no request from a timer (grep app/ for setTimeout before relying on this); this replaced a
   * fixed 200 ms of silence per state.
   */
  private async quiet() {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const sleep = this.inFlight > 0 ? 20 : 50 - (Date.now() - this.lastEnded);
      if (sleep > 0) {
        await new Promise((resolve) => setTimeout(resolve, sleep));
        continue;
      }
      const started = this.requests;
      const idle = await this.page
        .evaluate(() => new Promise<boolean>((resolve) => requestIdleCallback(() => resolve(true), { timeout: 1_000 })))
        // A navigation under way destroys the evaluation's context: not quiet yet.
        .catch(() => false);
      if (idle && this.inFlight === 0 && this.requests === started) return;
    }
  }
}

/**
 * The pages once more in a language other than English (issue 36): the visitor's and the Premium account's
 * every-page flows with a German browser, so that vnu.jar and axe judge the German pages too (`lang`, longer
 * words in the same layouts, the phone widths). Without JavaScript only: what the language changes is the
 * server's markup, which hydration keeps (React hydrates what the server wrote; the languages spec reads German
 * pages with JavaScript on), and the JavaScript-on walk of the same pages in English judges what scripts add.
 * With JavaScript on too it took a fifth of this check's time (81 of 417 lane-seconds, 57 of them with
 * JavaScript; issue 31). The other flows find their way by English names: they stay in English.
 */
function inGerman(flows: PageFlow[]): PageFlow[] {
  return flows
    .filter((flow) => flow.name.startsWith("every page") && (flow.role === "visitor" || flow.role === "premium"))
    .map((flow) => ({ ...flow, role: `${flow.role} in German`, locale: "de-DE", only: "no-js" as const }));
}

/** Every flow in the modes it runs in, LANES at a time (the JavaScript-on flows, slower, first). */
async function runFlows(browser: Browser, base: string, failures: string[]) {
  const flows = pageFlows(base);
  const tasks = (["js", "no-js"] as const).flatMap((mode) =>
    [...flows, ...inGerman(flows)]
      .filter((flow) => !flow.only || flow.only === mode)
      .filter((flow) => !ONLY || ONLY.split("|").some((text) => `${flow.role} ${flow.name}`.includes(text)))
      .map((flow) => ({ mode, flow })),
  );
  for (const mode of ["js", "no-js"]) fs.mkdirSync(path.join(OUT_DIR, mode), { recursive: true });
  let next = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      const scanContext = await browser.newContext({ ...DESKTOP, baseURL: base, javaScriptEnabled: true });
      const lane = new FlowPage(browser, base);
      try {
        const scanner = new StaticScanner(scanContext);
        while (next < tasks.length) {
          const { mode, flow } = tasks[next++]!;
          await runFlow(lane, mode, flow, scanner, failures);
        }
      } finally {
        await lane.discard();
        await settleWithin(scanContext.close(), CLOSE_LIMIT_MS);
      }
    }),
  );
}

/**
 * A lane's browser context and page for the flows of one mode, handed from flow to flow: a new context and
 * page per flow cost about 0.3 s each, and each flow's first pages loaded its stylesheet, fonts and scripts
 * into an empty cache. Between flows the page is sent to about:blank (nothing of the last flow's document
 * left), its viewport put back and the context's cookies cleared: the portal keeps nothing else in the
 * browser (no web storage, no service worker; grep app/ for localStorage before changing that), so the next
 * flow starts as a new visitor. A flow that breaks leaves them to be discarded; its retry gets new ones.
 */
class FlowPage {
  private held: { mode: Mode; locale: string | undefined; context: BrowserContext; page: Page } | null = null;

  constructor(
    private readonly browser: Browser,
    private readonly base: string,
  ) {}

  async take(mode: Mode, locale?: string): Promise<{ context: BrowserContext; page: Page }> {
    if (this.held?.mode !== mode || this.held.locale !== locale) await this.discard();
    if (!this.held) {
      const context = await this.browser.newContext({ ...DESKTOP, baseURL: this.base, javaScriptEnabled: mode === "js", ...(locale ? { locale } : {}) });
      context.setDefaultTimeout(15_000);
      // With JavaScript, nearly every document a flow reaches is scanned: axe comes with each document, from one
      // registration that Chromium compiles from its cache, instead of 0.5 MB sent and compiled per scanned
      // document (issue 31). injectInto still puts it where it is missing.
      if (mode === "js") await context.addInitScript({ content: AXE_SCRIPT });
      this.held = { mode, locale, context, page: await context.newPage() };
    }
    return this.held;
  }

  /** Readies the page for the next flow; if that fails, the next flow gets new ones. */
  async clear(): Promise<void> {
    if (!this.held) return;
    const { context, page } = this.held;
    try {
      await page.goto("about:blank");
      await context.clearCookies();
      await page.setViewportSize(DESKTOP.viewport);
    } catch {
      await this.discard();
    }
  }

  async discard(): Promise<void> {
    const held = this.held;
    this.held = null;
    if (held) await settleWithin(held.context.close(), CLOSE_LIMIT_MS);
  }
}

/**
 * Runs a flow on the lane's page. A flow that breaks is run once more, from the start with new accounts and a
 * new context, and the run says so: a page that did not load under load (a 503 while two cores also run
 * Chromium) is not what this check judges, but a flow that breaks twice is a failure (and what it reached is
 * checked).
 */
/** How long one flow may take before it counts as stuck (the slowest take under a minute on a loaded machine). */
const FLOW_LIMIT_MS = 300_000;

async function runFlow(lane: FlowPage, mode: Mode, flow: PageFlow, scanner: StaticScanner, failures: string[]) {
  const label = `${mode} ${flow.role} "${flow.name}"`;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    const { context, page } = await timed("context", lane.take(mode, flow.locale));
    const visit = new CheckVisit(page, mode, flow.role, scanner);
    let broke = false;
    try {
      // A flow that stops answering (a page evaluation never settles) fails and is retried instead of
      // holding the whole check: closing its context ends whatever it waited for.
      let timer: NodeJS.Timeout | undefined;
      const watchdog = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`the flow took more than ${FLOW_LIMIT_MS / 1000} s`));
          void settleWithin(context.close(), CLOSE_LIMIT_MS);
        }, FLOW_LIMIT_MS);
      });
      try {
        await timed(`${mode}: flows`, Promise.race([flow.run(visit, context), watchdog]));
      } finally {
        clearTimeout(timer);
      }
      save(visit.states);
      if (process.env.PAGE_CHECK_TIMES) console.log(`  ${label}: ${visit.states.length} states, ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    } catch (error) {
      broke = true;
      const message = (error as Error).message.split("\n").slice(0, 6).join("\n");
      // The no-JS states are checked in the lane's shared scanner page: a failure may have left it mid-way.
      await scanner.reset();
      if (attempt === 1) {
        console.log(`flow retried once: ${label}: ${message}`);
        continue;
      }
      save(visit.states);
      failures.push(`${label}: ${message}`);
      return;
    } finally {
      visit.detach();
      await timed("context", broke ? lane.discard() : lane.clear());
    }
  }
}

/** Closing a context or page whose page was mid-navigation has been seen to never settle: wait a bounded time. */
const CLOSE_LIMIT_MS = 10_000;

async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

type VnuMessage = { type: string; subType?: string; url?: string; lastLine?: number; firstColumn?: number; lastColumn?: number; message: string; extract?: string };

/** vnu.jar once over every file: its JSON messages. */
async function runVnu(files: string[]): Promise<VnuMessage[]> {
  const java = process.env.JAVA ?? "java";
  // A short run: the JVM's quick compiler alone (C1) and the serial collector take half the CPU of its
  // defaults. C1's frames are larger: the schema's deep recursion overflows the default 1 MB stack with it.
  const jvm = ["-Xss8m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];
  const args = [...jvm, "-jar", VNU_JAR, "--format", "json", "--stdout", "--skip-info-messages", "--exit-zero-always", ...files];
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

const modeName = (mode: Mode) => (mode === "js" ? "JavaScript on" : "JavaScript off");

/** vnu.jar's messages that fail the run, each with its state, file, line and column. */
function htmlProblems(messages: VnuMessage[], accepted: Map<string, number>): string[] {
  const byFile = new Map(snapshots.map((snapshot) => [`file:${snapshot.file}`, snapshot]));
  const problems: string[] = [];
  for (const message of messages) {
    const snapshot = message.url ? byFile.get(message.url) : undefined;
    const where = snapshot ? `${modeName(snapshot.mode)}, ${snapshot.label} (${path.relative(process.cwd(), snapshot.file)}` : `(${message.url ?? "?"}`;
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
    problems.push(`html ${kind}: ${line}\n  ${message.message}${message.extract ? `\n  in: ${message.extract.replace(/\s+/g, " ").trim()}` : ""}`);
  }
  return problems;
}

async function main() {
  const started = Date.now();
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  const server = await timed("start: server", () => startQualityServer({ port: PORT, name: "page-check", env: LOOPBACK_LIMITS }));
  // The flows make accounts in the server's database (tests/support/e2e.ts reads it from E2E_DATABASE_URL).
  process.env.E2E_DATABASE_URL = server.databaseFile;
  const failures: string[] = [];
  let browser: Browser | undefined;
  try {
    browser = await timed("start: browser", () => chromium.launch({
      executablePath: CHROME_PATH,
      args: BROWSER_TEST_ARGS,
    }));
    await runFlows(browser, server.base, failures);
  } finally {
    await browser?.close();
    await server.stop();
    server.cleanUp();
  }
  const walked = Date.now();
  console.log(
    `Walked ${snapshots.length} states in ${((walked - started) / 1000).toFixed(0)} s (summed over ${LANES} lanes: axe scans ${(axeMs / 1000).toFixed(0)} s, loading the JavaScript-off renderings ${(staticLoadMs / 1000).toFixed(0)} s, widths ${(widthMs / 1000).toFixed(0)} s); checking their HTML with vnu.jar...`,
  );

  if (process.env.PAGE_CHECK_TIMES) {
    for (const [phase, ms] of phaseMs) console.log(`  ${phase}: ${(ms / 1000).toFixed(1)} lane-s`);
  }
  const accepted = new Map<string, number>();
  const problems = htmlProblems(await runVnu(snapshots.map((snapshot) => snapshot.file)), accepted);
  const violations = snapshots.flatMap((snapshot) =>
    snapshot.violations.map((violation) => `axe: ${modeName(snapshot.mode)}, ${snapshot.label} (${snapshot.url})\n  ${violation}`),
  );
  const tooWide = snapshots.flatMap((snapshot) =>
    snapshot.overflows.map((overflow) => `too wide: ${modeName(snapshot.mode)}, ${snapshot.label} (${snapshot.url})\n  ${overflow}`),
  );
  for (const problem of [...problems, ...violations, ...tooWide]) console.log(`\n${problem}`);
  for (const [why, count] of accepted) console.log(`\n(${count} accepted warning(s): ${why})`);
  for (const failure of failures) console.log(`\nflow failed: ${failure}`);
  const modes = (["no-js", "js"] as const).map((mode) => `${snapshots.filter((s) => s.mode === mode).length} ${mode}`).join(", ");
  console.log(
    `\n${snapshots.length} states (${modes}); ${problems.length} HTML problem(s), ${violations.length} axe violation(s), ` +
      `${tooWide.length} page(s) wider than the screen, ${failures.length} failed flow(s); ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s in all (vnu.jar ${((Date.now() - walked) / 1000).toFixed(0)} s). HTML kept in ${OUT_DIR}/.`,
  );
  if (process.env.PAGE_CHECK_STATES) {
    // The states reached, one per line (to compare a run's coverage with another's).
    fs.writeFileSync(process.env.PAGE_CHECK_STATES, `${snapshots.map((s) => `${s.mode}\t${s.label}`).join("\n")}\n`);
  }
  if (server.serverErrors.length) console.log(`Server answered 5xx:\n${[...server.serverErrors, ...server.loggedErrors].join("\n")}`);
  if (server.stderrErrors.length) console.log(`Server errors:\n${server.stderrErrors.join("\n")}`);
  const failed =
    problems.length || violations.length || tooWide.length || failures.length || server.serverErrors.length || server.stderrErrors.length;
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
