import UAParser from "ua-parser-js";

/**
 * THE User-Agent parser of the product (issue 33): the device list, the security activity log, the
 * new sign-in alert, the receipt's app for this device and the wallets' Android notice all read a
 * browser through here. ua-parser-js (1.x, MIT; 2.x is AGPL) reads the User-Agent; this module renames
 * what it says to what customers know and completes it with the User-Agent client hints the portal
 * forwards (it asks for them with Accept-CH):
 *   os        'Windows' | 'macOS' | 'iOS' | 'iPadOS' | 'Android' | 'Chrome OS' | 'Linux' | a distribution
 *             ('Ubuntu') | another name the library knows | null
 *   osVersion '11', '17.5', '14' (null when nothing tells it truthfully)
 *   browser   'Chrome' | 'Edge' | 'Firefox' | 'Safari' | 'Opera' | 'Samsung Internet' | … | null
 *   model     the browser and its major version, 'Firefox 133'
 *
 * What the User-Agent alone cannot tell, and is therefore never guessed:
 * - Windows 11 sends "Windows NT 10.0" like Windows 10: only Sec-CH-UA-Platform-Version (13 and up)
 *   says 11. Without it the UA's version is said ('Windows 10').
 * - Browsers on macOS freeze the version at 10.15(.7), and Chrome on Android at "Android 10; K": those
 *   frozen versions are dropped unless a hint gives the real one.
 * - Chrome OS's UA version is a build number customers never see: dropped.
 * - iPadOS in desktop mode pretends to be macOS and is reported as macOS.
 * Every header is a string anyone can send: lengths are capped, hints are read only when well formed,
 * a version hint only counts when its platform agrees with the User-Agent, and unknowns yield null.
 */
export interface ParsedUserAgent {
  os: string | null;
  osVersion: string | null;
  browser: string | null;
  browserVersion: string | null;
  /** Browser and major version, e.g. 'Chrome 131'; null when the browser is unknown. */
  model: string | null;
}

/** The User-Agent client hints the parser reads (the raw header values, as the browser sent them). */
export interface ClientHints {
  /** Sec-CH-UA-Platform: '"Windows"'. */
  platform?: string | null;
  /** Sec-CH-UA-Platform-Version: '"15.0.0"'. */
  platformVersion?: string | null;
  /** Sec-CH-UA-Full-Version-List: '"Microsoft Edge";v="131.0.2903.86", "Chromium";v="131.0.6778.140", …'. */
  fullVersionList?: string | null;
  /** Sec-CH-UA: the same list with major versions only (sent without being asked). */
  brands?: string | null;
}

/** The request headers that carry the hints, as the portal forwards them and the API reads them. */
export const CLIENT_HINT_HEADERS = {
  platform: "sec-ch-ua-platform",
  platformVersion: "sec-ch-ua-platform-version",
  fullVersionList: "sec-ch-ua-full-version-list",
  brands: "sec-ch-ua",
} as const satisfies Record<keyof ClientHints, string>;

const MAX_USER_AGENT = 1024;
const MAX_HINT = 512;

/** The client hints of a request's headers (Node's lower-cased header object); null when none is sent. */
export function clientHintsOf(headers: Record<string, string | string[] | undefined>): ClientHints | null {
  const hints: ClientHints = {};
  let any = false;
  for (const [key, header] of Object.entries(CLIENT_HINT_HEADERS) as Array<[keyof ClientHints, string]>) {
    const raw = headers[header];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === "string" && value.length > 0 && value.length <= MAX_HINT) {
      hints[key] = value;
      any = true;
    }
  }
  return any ? hints : null;
}

/** The hints as stored beside a security event (a short JSON text), or null. */
export function storedClientHints(hints: ClientHints | null | undefined): string | null {
  if (!hints) return null;
  const kept = { platform: hints.platform ?? undefined, platformVersion: hints.platformVersion ?? undefined, fullVersionList: hints.fullVersionList ?? undefined };
  const text = JSON.stringify(kept);
  return text === "{}" || text.length > 2 * MAX_HINT ? null : text;
}

/** The hints back from storedClientHints' text; null for anything else. */
export function readStoredClientHints(text: string | null | undefined): ClientHints | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== "object") return null;
    const record = value as Record<string, unknown>;
    const pick = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : null);
    return { platform: pick("platform"), platformVersion: pick("platformVersion"), fullVersionList: pick("fullVersionList") };
  } catch {
    return null;
  }
}

/** The library's OS names → the names customers know. */
const OS_NAMES: Record<string, string> = {
  "Mac OS": "macOS",
  "Chromium OS": "Chrome OS",
  "Chrome OS": "Chrome OS",
  Windows: "Windows",
  iOS: "iOS",
  Android: "Android",
  Linux: "Linux",
};

/** The library's browser names → the names customers know (the mobile variants are the same browser). */
const BROWSER_NAMES: Record<string, string> = {
  "Mobile Safari": "Safari",
  "Mobile Firefox": "Firefox",
  "Mobile Chrome": "Chrome",
  "Chrome Headless": "Chrome",
  "Chrome WebView": "Chrome",
  "Opera Mobi": "Opera",
  "Opera Touch": "Opera",
  "Edge WebView": "Edge",
};

/** Brands of the client hints that name a browser customers know (Chromium and GREASE brands do not). */
const HINT_BRANDS: Record<string, string> = {
  "Google Chrome": "Chrome",
  "Microsoft Edge": "Edge",
  Opera: "Opera",
  "Opera GX": "Opera GX",
  Brave: "Brave",
  Vivaldi: "Vivaldi",
  "Samsung Internet": "Samsung Internet",
  Yandex: "Yandex",
};

/** Sec-CH-UA-Platform names → the names customers know. */
const HINT_PLATFORMS: Record<string, string> = {
  Windows: "Windows",
  macOS: "macOS",
  Android: "Android",
  "Chrome OS": "Chrome OS",
  "Chromium OS": "Chrome OS",
  Linux: "Linux",
  iOS: "iOS",
};

const VERSION = /^\d{1,6}(?:\.\d{1,10}){0,4}$/;
/** A printable name of a sensible length: anything else from a header is ignored. */
const NAME = /^[\p{L}\p{N} ._()+-]{1,40}$/u;

/** The text of a structured-header string ('"Windows"' → 'Windows'), or null when it is not one. */
function sfString(value: string | null | undefined): string | null {
  const m = /^\s*"([^"\\]{0,64})"\s*$/.exec(value ?? "");
  return m ? (m[1] ?? null) : null;
}

/** The brand list of Sec-CH-UA(-Full-Version-List): [['Microsoft Edge', '131.0.2903.86'], …]. */
function brandList(value: string | null | undefined): Array<[brand: string, version: string]> {
  const list: Array<[string, string]> = [];
  for (const item of (value ?? "").split(",").slice(0, 8)) {
    const m = /^\s*"([^"\\]{1,64})"\s*;\s*v\s*=\s*"([^"\\]{1,32})"\s*$/.exec(item);
    if (m?.[1] && m[2] && NAME.test(m[1]) && VERSION.test(m[2])) list.push([m[1], m[2]]);
  }
  return list;
}

/** The browser the hints name, when one of their brands is a browser customers know. */
function hintedBrowser(hints: ClientHints | null | undefined): { browser: string; version: string } | null {
  const list = brandList(hints?.fullVersionList);
  for (const [brand, version] of list.length > 0 ? list : brandList(hints?.brands)) {
    const browser = HINT_BRANDS[brand];
    if (browser) return { browser, version };
  }
  return null;
}

/** The OS version the hint gives for `os` (the one the User-Agent names), or undefined when it says nothing usable. */
function hintedOsVersion(os: string, hints: ClientHints | null | undefined): string | null | undefined {
  const platform = HINT_PLATFORMS[sfString(hints?.platform) ?? ""];
  const version = sfString(hints?.platformVersion);
  // A version only counts for the platform the User-Agent names (Sec-CH-UA-Platform is sent with every request).
  if (!version || !VERSION.test(version) || (platform !== undefined && platform !== os)) return undefined;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  switch (os) {
    case "Windows":
      // https://learn.microsoft.com/microsoft-edge/web-platform/how-to-detect-win11: 13 and up is 11, 1–10 is 10, 0 is older (the UA says which).
      if (major >= 13) return "11";
      if (major >= 1) return "10";
      return undefined;
    case "macOS":
    case "Android":
    case "iOS":
      return major > 0 ? (minor > 0 ? `${major}.${minor}` : String(major)) : undefined;
    default:
      return undefined;
  }
}

function osOf(result: UAParser.IResult): { os: string | null; osVersion: string | null } {
  const name = result.os.name;
  if (!name || !NAME.test(name)) return { os: null, osVersion: null };
  let os = OS_NAMES[name] ?? name;
  let osVersion = result.os.version && VERSION.test(result.os.version) ? result.os.version : null;
  if (os === "iOS" && result.device.model === "iPad") os = "iPadOS";
  // Frozen or meaningless versions (see above) say nothing.
  if (os === "macOS" && osVersion && /^10\.15(\.7)?$/.test(osVersion)) osVersion = null;
  if (os === "Android" && osVersion === "10" && result.device.model === "K") osVersion = null;
  if (os === "Chrome OS") osVersion = null;
  return { os, osVersion };
}

/**
 * Answers kept per User-Agent and hints: a customer's browser sends the same ones on every request (the
 * checkout's payment config reads the device each time), and the library's regex walk is most of the cost.
 * Bounded; cleared when full, since anyone can send new strings.
 */
const parsedAnswers = new Map<string, ParsedUserAgent>();
const MAX_PARSED_ANSWERS = 500;

/** What a browser is, from its User-Agent and (when the portal forwarded them) its client hints. */
export function parseUserAgent(userAgent: string | undefined | null, hints?: ClientHints | null): ParsedUserAgent {
  const ua = (userAgent ?? "").slice(0, MAX_USER_AGENT);
  const key = hints ? `${ua}\n${hints.platform ?? ""}\n${hints.platformVersion ?? ""}\n${hints.fullVersionList ?? ""}\n${hints.brands ?? ""}` : ua;
  const kept = parsedAnswers.get(key);
  if (kept) return { ...kept };
  const parsed = parseUncached(ua, hints);
  if (parsedAnswers.size >= MAX_PARSED_ANSWERS) parsedAnswers.clear();
  parsedAnswers.set(key, parsed);
  return { ...parsed };
}

function parseUncached(ua: string, hints: ClientHints | null | undefined): ParsedUserAgent {
  const result = new UAParser(ua).getResult();
  const { os, osVersion: uaOsVersion } = osOf(result);
  const hinted = os ? hintedOsVersion(os === "iPadOS" ? "iOS" : os, hints) : undefined;
  const osVersion = hinted === undefined ? uaOsVersion : hinted;

  const libraryName = result.browser.name && NAME.test(result.browser.name) ? result.browser.name : null;
  let browser = libraryName ? (BROWSER_NAMES[libraryName] ?? libraryName) : null;
  let browserVersion = result.browser.version && VERSION.test(result.browser.version) ? result.browser.version : null;
  // Chromium-based browsers that look like Chrome in the User-Agent (Brave) name themselves in the hints.
  const fromHints = browser === null || browser === "Chrome" || browser === "Edge" || browser === "Opera" ? hintedBrowser(hints) : null;
  if (fromHints) {
    browser = fromHints.browser;
    browserVersion = fromHints.version;
  }
  const major = browserVersion?.split(".")[0] ?? null;
  const model = browser ? (major ? `${browser} ${major}` : browser) : null;
  return { os, osVersion, browser, browserVersion, model };
}

/** 'Firefox 133 on Windows 11' from a browser's model and system; either part alone when the other is unknown; null when both are. */
export function browserLabel(model: string | null | undefined, os: string | null | undefined, osVersion?: string | null): string | null {
  const system = os ? [os, osVersion].filter(Boolean).join(" ") : null;
  if (model && system) return `${model} on ${system}`;
  return model || system || null;
}

/** 'Firefox 133 on Windows 11' from a User-Agent and its client hints, or null when nothing is known. */
export function describeUserAgent(userAgent: string | null | undefined, hints?: ClientHints | null): string | null {
  const ua = parseUserAgent(userAgent, hints);
  return browserLabel(ua.model, ua.os, ua.osVersion);
}

/** The platforms the product has apps for, by the customer-facing OS names above. */
export const APP_PLATFORMS = ["Windows", "macOS", "Linux", "Android", "iOS"] as const;
export type AppPlatform = (typeof APP_PLATFORMS)[number];

/** Which of the product's apps fits an OS (as parseUserAgent names it), or null. */
export function appPlatformOf(os: string | null | undefined): AppPlatform | null {
  switch (os) {
    case "Windows":
    case "macOS":
    case "Android":
    case "iOS":
      return os;
    case "iPadOS":
      return "iOS";
    case null:
    case undefined:
      return null;
    default:
      return os === "Linux" || os === "Chrome OS" || LINUX_DISTRIBUTIONS.test(os) ? "Linux" : null;
  }
}

/** The Linux distributions ua-parser-js names on their own. */
export const LINUX_DISTRIBUTIONS = /^(ubuntu|kubuntu|xubuntu|debian|fedora|mint|arch|manjaro|gentoo|centos|red ?hat|suse|opensuse|slackware|mandriva|deepin|elementary os|zenwalk|pclinuxos|mageia|sabayon|knoppix|linpus|raspbian|vectorlinux)\b/i;
