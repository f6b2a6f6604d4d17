import AxeBuilder from "@axe-core/playwright";
import { type BrowserContext, type Page, test as base, expect } from "@playwright/test";
import { hasJavaScript } from "../support/e2e";
import { openPage, pageFlows, type SnapOptions, type Visit } from "../support/page-states";

// Accessibility (issue 11): axe-core on every page of the portal in every state a user meets it, signed out and
// signed in, with JavaScript off and on, expects no violation of any rule axe runs by default (WCAG 2.x A and
// AA and its best practices: landmarks, heading order, one h1, ...). The states are the walk the HTML check
// (scripts/html-check.ts) takes too: tests/support/page-states.ts, one test per flow.
//
// How the JavaScript-off project scans: axe is script injected into the page, and Playwright evaluates
// nothing in a page whose context has JavaScript disabled (with Playwright 1.65 AxeBuilder.analyze()
// just hangs until the test times out, and so does page.evaluate(), even after re-enabling scripts
// through CDP). So the no-js project drives the flows in its JavaScript-off browser as a visitor would,
// keeps the HTML of the last document the server answered, and scans that HTML as a JavaScript-off
// browser shows it: its <script> elements removed and its <noscript> contents unwrapped (a browser
// with scripting off parses them as markup), served at the same URL (so its stylesheet applies and
// colour contrast is real) to a page of a separate, script-enabled context, where only axe runs.

type Axe = {
  /** Scans the page as the visitor sees it now, and records its violations under `label`. */
  check(label: string, options?: SnapOptions): Promise<void>;
  /** Scans an HTML answer (e.g. of a plain POST) as a JavaScript-off browser would render it at `url`. */
  checkHtml(label: string, url: string, html: string): Promise<void>;
};

const test = base.extend<{ axe: Axe }>({
  axe: async ({ page, browser }, use, testInfo) => {
    const javaScript = hasJavaScript(testInfo);
    let lastDocument: Promise<{ url: string; html: string }> | null = null;
    page.on("response", (response) => {
      const request = response.request();
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
      if (response.status() >= 300 && response.status() < 400) return;
      lastDocument = response.text().then((html) => ({ url: response.url(), html }));
    });

    let scanContext: BrowserContext | null = null;
    const staticScan = async (label: string, url: string, html: string, options: SnapOptions = {}) => {
      scanContext ??= await browser.newContext({ javaScriptEnabled: true, viewport: page.viewportSize() });
      const scanPage = await scanContext.newPage();
      try {
        await scanPage.route(
          (candidate) => candidate.href === url,
          (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: asWithoutJavaScript(html) }),
        );
        await scanPage.goto(url);
        await record(label, scanPage, options);
      } finally {
        await scanPage.close();
      }
    };

    const record = async (label: string, target: Page, options: SnapOptions) => {
      if (options.openDetails) await openAllDetails(target);
      await options.prepare?.(target);
      const builder = new AxeBuilder({ page: target });
      if (options.timedRedirect) builder.disableRules(["meta-refresh"]);
      const { violations } = await builder.analyze();
      const found = violations.flatMap((violation) =>
        violation.nodes.map((node) => `${violation.id} (${violation.impact}): ${violation.help} at ${node.target.join(" ")}`),
      );
      expect.soft(found, `axe violations on ${label} (${javaScript ? "JavaScript on" : "JavaScript off"})`).toEqual([]);
    };

    await use({
      async check(label, options = {}) {
        if (javaScript) return record(label, page, options);
        if (!lastDocument) throw new Error(`No document was loaded before scanning ${label}`);
        const { url, html } = await lastDocument;
        await staticScan(label, url, html, options);
      },
      async checkHtml(label, url, html) {
        await staticScan(label, url, html);
      },
    });
    await (scanContext as BrowserContext | null)?.close();
  },
});

/** What a browser with scripting disabled makes of the server's HTML: no scripts, <noscript> as markup. */
function asWithoutJavaScript(html: string): string {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "")
    .replace(/<\/?noscript>/gi, "");
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

// The flows' titles are known before the server's address: each test walks its flow against the project's baseURL.
pageFlows("").forEach(({ role, name, only }, index) => {
  test(`${role}: ${name}`, async ({ page, axe, baseURL }, testInfo) => {
    const js = hasJavaScript(testInfo);
    test.skip(only !== undefined && only !== (js ? "js" : "no-js"), `the flow exists ${only === "js" ? "with" : "without"} JavaScript only`);
    // Several pages and a flow in one test, on a machine that may be busy.
    test.setTimeout(150_000);
    const flow = pageFlows(baseURL!)[index]!;
    const visit: Visit = {
      page,
      js,
      open: (pathname) => openPage(page, pathname, js),
      snap: (label, options) => axe.check(`${role}: ${label}`, options),
      record: (label, url, html) => axe.checkHtml(`${role}: ${label}`, url, html),
      async visit(pathname, label = pathname) {
        await openPage(page, pathname, js);
        await axe.check(`${role}: ${label}`, { openDetails: true });
      },
    };
    await flow.run(visit, page.context());
  });
});
