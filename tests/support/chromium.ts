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
