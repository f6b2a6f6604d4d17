import { describe, expect, it } from "vitest";
import { deviceName } from "../../api/identity/devices";
import {
  type ClientHints,
  appPlatformOf,
  clientHintsOf,
  describeUserAgent,
  parseUserAgent,
  readStoredClientHints,
  storedClientHints,
} from "../../api/identity/user-agent";

// The one User-Agent parser (issue 33): real User-Agent strings, with and without the client hints a
// Chromium browser sends once the portal asks for them, and what a hostile header makes of it.

const UA = {
  firefoxWindows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
  edgeWindows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
  chromeWindows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  chromeAndroid: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  // Chrome's reduced User-Agent on Android: the version and model are frozen ("Android 10; K").
  chromeAndroidReduced: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  safariIphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  safariIpad: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  chromeIphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
  safariMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
  chromeMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  samsung:
    "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
  chromeOs: "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  firefoxLinux: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  firefoxUbuntu: "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  opera: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/116.0.0.0",
  chromeWindows7: "Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36",
  headless: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
};

const windows11: ClientHints = {
  platform: '"Windows"',
  platformVersion: '"15.0.0"',
  fullVersionList: '"Microsoft Edge";v="131.0.2903.86", "Chromium";v="131.0.6778.140", "Not_A Brand";v="24.0.0.0"',
};

describe("parseUserAgent: what customers know, from the User-Agent alone", () => {
  it.each<[string, string, string | null]>([
    ["Firefox 133 on Windows 10 (no hints: never guessed to be 11)", UA.firefoxWindows, "Firefox 133 on Windows 10"],
    ["Edge on Windows without hints", UA.edgeWindows, "Edge 131 on Windows 10"],
    ["Chrome on Android", UA.chromeAndroid, "Chrome 131 on Android 14"],
    ["Chrome's reduced Android User-Agent: the frozen version is not said", UA.chromeAndroidReduced, "Chrome 131 on Android"],
    ["Safari on an iPhone ('Mobile Safari' is Safari)", UA.safariIphone, "Safari 17 on iOS 17.5"],
    ["Safari on an iPad", UA.safariIpad, "Safari 17 on iPadOS 17.5"],
    ["Chrome on an iPhone (CriOS)", UA.chromeIphone, "Chrome 131 on iOS 17.5"],
    ["Safari on macOS: the frozen 10.15.7 is not said", UA.safariMac, "Safari 18 on macOS"],
    ["Samsung Internet", UA.samsung, "Samsung Internet 26 on Android 14"],
    ["Chrome OS (its build number is not a version customers know)", UA.chromeOs, "Chrome 131 on Chrome OS"],
    ["Firefox on Linux", UA.firefoxLinux, "Firefox 133 on Linux"],
    ["Firefox on Ubuntu", UA.firefoxUbuntu, "Firefox 133 on Ubuntu"],
    ["Opera", UA.opera, "Opera 116 on Windows 10"],
    ["Windows 7", UA.chromeWindows7, "Chrome 109 on Windows 7"],
    ["headless Chrome", UA.headless, "Chrome 131 on Linux"],
    ["curl", "curl/8.5.0", null],
    ["empty", "", null],
  ])("%s", (_name, ua, label) => {
    expect(describeUserAgent(ua)).toBe(label);
  });

  it("answers the parts separately", () => {
    expect(parseUserAgent(UA.firefoxWindows)).toEqual({
      os: "Windows",
      osVersion: "10",
      browser: "Firefox",
      browserVersion: "133.0",
      model: "Firefox 133",
    });
    expect(parseUserAgent(null)).toEqual({ os: null, osVersion: null, browser: null, browserVersion: null, model: null });
  });
});

describe("parseUserAgent: client hints", () => {
  it("Sec-CH-UA-Platform-Version 13 and up is Windows 11; 1 to 10 is Windows 10", () => {
    expect(describeUserAgent(UA.edgeWindows, windows11)).toBe("Edge 131 on Windows 11");
    expect(describeUserAgent(UA.chromeWindows, { platform: '"Windows"', platformVersion: '"13.0.0"' })).toBe("Chrome 131 on Windows 11");
    expect(describeUserAgent(UA.chromeWindows, { platform: '"Windows"', platformVersion: '"10.0.0"' })).toBe("Chrome 131 on Windows 10");
    // 0 is before Windows 10: the User-Agent says which.
    expect(describeUserAgent(UA.chromeWindows7, { platform: '"Windows"', platformVersion: '"0.3.0"' })).toBe("Chrome 109 on Windows 7");
  });

  it("the hints give the real macOS and Android versions the User-Agent freezes", () => {
    expect(describeUserAgent(UA.chromeMac, { platform: '"macOS"', platformVersion: '"14.5.0"' })).toBe("Chrome 131 on macOS 14.5");
    expect(describeUserAgent(UA.chromeAndroidReduced, { platform: '"Android"', platformVersion: '"14.0.0"' })).toBe("Chrome 131 on Android 14");
  });

  it("a browser that says Chrome in its User-Agent names itself in the hints (Brave)", () => {
    const brave = { fullVersionList: '"Brave";v="131.1.73.97", "Chromium";v="131.0.6778.140", "Not_A Brand";v="24.0.0.0"' };
    expect(parseUserAgent(UA.chromeWindows, brave)).toMatchObject({ browser: "Brave", model: "Brave 131" });
    // Sec-CH-UA (majors only, sent without being asked) when the full list is missing.
    expect(parseUserAgent(UA.chromeWindows, { brands: '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"' })).toMatchObject({
      browser: "Chrome",
      model: "Chrome 131",
    });
  });

  it("a version hint for another platform than the User-Agent's, or a malformed one, is ignored", () => {
    expect(describeUserAgent(UA.firefoxWindows, { platform: '"macOS"', platformVersion: '"15.0.0"' })).toBe("Firefox 133 on Windows 10");
    expect(describeUserAgent(UA.chromeWindows, { platform: '"Windows"', platformVersion: "15.0.0" })).toBe("Chrome 131 on Windows 10");
    expect(describeUserAgent(UA.chromeWindows, { platform: '"Windows"', platformVersion: '"15.0.0<script>"' })).toBe("Chrome 131 on Windows 10");
    expect(describeUserAgent(UA.chromeWindows, { fullVersionList: '"<img src=x>";v="1", "Google Chrome";v="abc"' })).toBe("Chrome 131 on Windows 10");
    // Hints never make up an OS the User-Agent does not name.
    expect(describeUserAgent("curl/8.5.0", windows11)).toBe("Edge 131");
  });

  it("reads the hints from request headers, refusing oversized ones, and stores them as short JSON", () => {
    const hints = clientHintsOf({
      "sec-ch-ua-platform": '"Windows"',
      "sec-ch-ua-platform-version": '"15.0.0"',
      "sec-ch-ua-full-version-list": "x".repeat(600),
    });
    expect(hints).toEqual({ platform: '"Windows"', platformVersion: '"15.0.0"' });
    expect(clientHintsOf({ "user-agent": UA.chromeWindows })).toBeNull();
    expect(readStoredClientHints(storedClientHints(hints))).toEqual({ platform: '"Windows"', platformVersion: '"15.0.0"', fullVersionList: null });
    expect(storedClientHints(null)).toBeNull();
    expect(readStoredClientHints("not json")).toBeNull();
    expect(readStoredClientHints("[1]")).toEqual({ platform: null, platformVersion: null, fullVersionList: null });
  });
});

describe("parseUserAgent: hostile input never breaks it", () => {
  it.each([
    ["garbage", "(((( ;;;; )))) \u0000\u0007 Mozilla/"],
    ["very long", `Mozilla/5.0 (Windows NT 10.0) ${"A".repeat(100_000)} Firefox/133.0`],
    ["only control characters", "\u0001\u0002\u0003"],
    ["huge version", `Mozilla/5.0 (Windows NT 10.0; rv:1) Gecko/20100101 Firefox/${"9".repeat(5000)}`],
  ])("%s", (_name, ua) => {
    const parsed = parseUserAgent(ua, { platform: "\"".repeat(400), platformVersion: `"1${".1".repeat(200)}"`, fullVersionList: ",".repeat(500) });
    for (const value of Object.values(parsed)) expect(value === null || (typeof value === "string" && value.length <= 60)).toBe(true);
  });

  it("answers quickly for a User-Agent made to be slow", () => {
    const started = performance.now();
    parseUserAgent(`Mozilla/5.0 (${"Windows ".repeat(5000)}) ${"Chrome/1.".repeat(5000)}`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("the device list and the apps read the parser's names", () => {
  it("names a web device '<browser> <major> on <OS> <version>', a desktop app's by its own fields", () => {
    const web = { platform: "Web Browser", device_brand: "Firefox", device_model: "Firefox 133", device_os: "Windows", device_os_version: "11" };
    expect(deviceName(web)).toBe("Firefox 133 on Windows 11");
    expect(deviceName({ ...web, device_model: null, device_brand: null, device_os: null, device_os_version: null })).toBe("Web browser");
    const desktop = { platform: "Desktop", device_brand: "Dell", device_model: "XPS 13", device_os: "Linux", device_os_version: "6.8" };
    expect(deviceName(desktop)).toBe("Dell XPS 13 on Linux 6.8");
    expect(deviceName({ ...desktop, device_model: "Dell XPS 13" })).toBe("Dell XPS 13 on Linux 6.8");
    expect(deviceName({ ...desktop, device_brand: null, device_model: null, device_os: null, device_os_version: null })).toBe("Desktop");
  });


  it("which app fits the device (the receipt's first app)", () => {
    const app = (ua: string) => appPlatformOf(parseUserAgent(ua).os);
    expect(app(UA.firefoxWindows)).toBe("Windows");
    expect(app(UA.safariMac)).toBe("macOS");
    expect(app(UA.safariIphone)).toBe("iOS");
    expect(app(UA.safariIpad)).toBe("iOS");
    expect(app(UA.chromeAndroid)).toBe("Android");
    expect(app(UA.firefoxLinux)).toBe("Linux");
    expect(app(UA.firefoxUbuntu)).toBe("Linux");
    expect(app(UA.chromeOs)).toBe("Linux");
    expect(app("curl/8.5.0")).toBeNull();
  });

  it("a kept answer is the same answer, one caller's change to it reaches no other, and a flood of new strings changes nothing", () => {
    const windows11 = { platform: '"Windows"', platformVersion: '"15.0.0"' };
    const first = parseUserAgent(UA.chromeWindows, windows11);
    first.os = "tampered";
    expect(parseUserAgent(UA.chromeWindows, windows11)).toMatchObject({ os: "Windows", osVersion: "11" });
    // The same User-Agent with other hints (or none) is another answer.
    expect(parseUserAgent(UA.chromeWindows).osVersion).toBe("10");
    for (let i = 0; i < 1_200; i++) parseUserAgent(`Mozilla/5.0 (X11; Linux x86_64) Flood/${i}`);
    expect(parseUserAgent(UA.chromeWindows, windows11)).toMatchObject({ os: "Windows", osVersion: "11", model: expect.stringMatching(/^Chrome \d+$/) });
  });
});
