import { describe, expect, it } from "vitest";
import { platformOf } from "~/routes/subscription.payment.$planId/receipt.server";

// The receipt's "apps for this device" (issue 21) reads the platform from the User-Agent: the order of
// the checks matters, since Android says Linux and iOS says "like Mac OS X".

describe("platformOf", () => {
  it.each([
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Windows"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "macOS"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "iOS"],
    ["Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "iOS"],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", "Android"],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Linux"],
  ])("%s → %s", (userAgent, platform) => {
    expect(platformOf(userAgent)).toBe(platform);
  });

  it("says nothing for an unknown or missing User-Agent", () => {
    expect(platformOf("curl/8.5.0")).toBeNull();
    expect(platformOf(null)).toBeNull();
  });
});
