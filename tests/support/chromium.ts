import { existsSync } from "node:fs";

/**
 * The Chromium the browser tests drive, from Debian (a test tool's own download does not work here):
 * CHROMIUM_PATH when set; else the headless shell (package chromium-headless-shell, Chromium's "old" headless
 * mode, the build Playwright itself runs headless tests in), which spends about a third less CPU per test than
 * the full browser in its new headless mode; else the full browser (package chromium). Same Blink, same V8.
 */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_CHROMIUM;
}

export const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
export const FULL_CHROMIUM = "/usr/bin/chromium";

/**
 * The flags every Chromium here is launched with: as root in a sandbox of its own, on a machine with no GPU and
 * no way out but the npm registry (Lighthouse adds its own, scripts/lighthouse.ts).
 */
export const MACHINE_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * The flags the browser tests launch Chromium with (Playwright's specs and the page check): the machine's, and
 * site isolation off (`--disable-site-isolation-trials`; Lighthouse keeps it on, as a visitor's Chrome has it).
 *
 * Site isolation is off (`--disable-site-isolation-trials`): every page the tests open is served from
 * 127.0.0.1, one site, stand-ins included, so isolating sites from each other isolates nothing here. With it
 * on, Playwright's reset between tests (about:blank, then the origin) gave each test new renderer processes,
 * about 1.8 a test; without it two processes serve a worker's run. On 60 tests (checkout, billing, sign-in,
 * saved cards), three alternating runs each: 86 CPU-s against 94 (system time 15 against 19-20), 51 s against
 * 55; on the whole run, within its noise (783 against 792 CPU-s; issue 31, docs/decisions/069). The pages render
 * and behave the same: what isolation changes is which process runs them.
 *
 * Not a flag here: Chromium's `RenderDocument` feature is off for every Playwright launch, added to Playwright's
 * own `--disable-features` list by patches/playwright-core+1.65.1.patch (Chromium honours the last
 * `--disable-features` only, so a flag of ours would have dropped Playwright's list). A same-site navigation then
 * keeps its frame and compositor: 127-143 ms of Chromium CPU per navigation against 217-246 ms (docs/decisions/074).
 */
export const BROWSER_TEST_ARGS = [...MACHINE_FLAGS, "--disable-site-isolation-trials"];
