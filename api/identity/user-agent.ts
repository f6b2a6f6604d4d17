/**
 * A small, dependency-free User-Agent parser for the device list (what the API stores for a web
 * sign-in). It answers only what a device row needs:
 *   device_os          'Windows' | 'macOS' | 'iOS' | 'iPadOS' | 'Android' | 'Chrome OS' | 'Linux' | null
 *   device_os_version  e.g. '10', '10.15.7', '17.5', '14' (null when the UA does not say)
 *   device_brand       the browser: 'Chrome' | 'Edge' | 'Firefox' | 'Safari' | 'Opera' |
 *                      'Samsung Internet' | 'Chromium' | null
 *   device_model       browser and major version, e.g. 'Chrome 131'
 *
 * Choices and known limits (a full parser such as ua-parser-js was not worth a dependency here):
 * - Browser detection order matters because UAs borrow each other's tokens: Edge ("Edg/") and
 *   Opera ("OPR/") and Samsung Internet before Chrome, Chrome before Safari, and the iOS variants
 *   (CriOS, FxiOS, EdgiOS) map to their desktop names.
 * - Windows 11 sends "Windows NT 10.0" like Windows 10 (only client hints tell them apart), so it is
 *   reported as Windows 10. Browsers on macOS freeze the version at 10.15.7; it is reported as sent.
 * - iPadOS 13+ in desktop mode pretends to be macOS and is reported as macOS.
 * - Anything unrecognised yields nulls rather than a guess.
 */
export interface ParsedUserAgent {
  os: string | null;
  osVersion: string | null;
  browser: string | null;
  browserVersion: string | null;
  /** Browser and major version, e.g. 'Chrome 131'; null when the browser is unknown. */
  model: string | null;
}

const WINDOWS_VERSIONS: Record<string, string> = {
  "10.0": "10",
  "6.3": "8.1",
  "6.2": "8",
  "6.1": "7",
  "6.0": "Vista",
  "5.2": "XP",
  "5.1": "XP",
};

function parseOs(ua: string): { os: string | null; osVersion: string | null } {
  let m: RegExpExecArray | null;
  if ((m = /Windows NT (\d+\.\d+)/.exec(ua))) {
    return { os: "Windows", osVersion: WINDOWS_VERSIONS[m[1] ?? ""] ?? m[1] ?? null };
  }
  if (/Windows/.test(ua)) return { os: "Windows", osVersion: null };
  if ((m = /\biPad\b.*?\bOS (\d+(?:_\d+)*)/.exec(ua))) return { os: "iPadOS", osVersion: dots(m[1]) };
  if ((m = /\b(?:iPhone|iPod)\b.*?\bOS (\d+(?:_\d+)*)/.exec(ua))) return { os: "iOS", osVersion: dots(m[1]) };
  if ((m = /Mac OS X (\d+(?:[_.]\d+)*)/.exec(ua))) return { os: "macOS", osVersion: dots(m[1]) };
  if (/Macintosh/.test(ua)) return { os: "macOS", osVersion: null };
  if ((m = /Android[ /]?(\d+(?:\.\d+)*)?/.exec(ua))) return { os: "Android", osVersion: m[1] ?? null };
  if ((m = /CrOS \S+ (\d+(?:\.\d+)*)/.exec(ua))) return { os: "Chrome OS", osVersion: m[1] ?? null };
  if (/CrOS/.test(ua)) return { os: "Chrome OS", osVersion: null };
  if (/Linux|X11/.test(ua)) return { os: "Linux", osVersion: null };
  return { os: null, osVersion: null };
}

function dots(version: string | undefined): string | null {
  return version ? version.replace(/_/g, ".") : null;
}

const BROWSERS: Array<[name: string, pattern: RegExp]> = [
  ["Edge", /\b(?:Edg|Edge|EdgA|EdgiOS)\/(\d+(?:\.\d+)*)/],
  ["Opera", /\b(?:OPR|Opera|OPiOS)\/(\d+(?:\.\d+)*)/],
  ["Samsung Internet", /\bSamsungBrowser\/(\d+(?:\.\d+)*)/],
  ["Firefox", /\b(?:Firefox|FxiOS)\/(\d+(?:\.\d+)*)/],
  ["Chromium", /\bChromium\/(\d+(?:\.\d+)*)/],
  ["Chrome", /\b(?:Chrome|CriOS)\/(\d+(?:\.\d+)*)/],
  ["Safari", /\bVersion\/(\d+(?:\.\d+)*).*\bSafari\//],
];

export function parseUserAgent(userAgent: string | undefined | null): ParsedUserAgent {
  const ua = (userAgent ?? "").slice(0, 1024);
  const { os, osVersion } = parseOs(ua);
  for (const [name, pattern] of BROWSERS) {
    const m = pattern.exec(ua);
    if (m?.[1]) {
      const major = m[1].split(".")[0] ?? m[1];
      return { os, osVersion, browser: name, browserVersion: m[1], model: `${name} ${major}` };
    }
  }
  return { os, osVersion, browser: null, browserVersion: null, model: null };
}
