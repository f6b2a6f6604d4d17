import { describe, expect, it } from "vitest";
import { loginUrlFor, safeRedirect } from "~/utils/safe-redirect";

describe("safeRedirect", () => {
  it.each([
    ["/billing", "/billing"],
    ["/billing?tab=history#x", "/billing?tab=history#x"],
    ["/subscription/payment/5", "/subscription/payment/5"],
    ["/a/../b", "/b"],
  ])("keeps the same-origin path %s", (input, expected) => {
    expect(safeRedirect(input)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "http://evil.example",
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/..//evil.example",
    "/.//evil.example",
    "/a/..//evil.example",
    "/%2e%2e//evil.example",
    "/%2E%2E//evil.example/path?x=1",
    "/\n/evil.example",
    "javascript:alert(1)",
    "data:text/html,hi",
    "evil.example",
    "",
    "x".repeat(3000),
  ])("sends %j home", (input) => {
    expect(safeRedirect(input)).toBe("/");
  });

  it("takes non-strings and a custom fallback", () => {
    expect(safeRedirect(null)).toBe("/");
    expect(safeRedirect(undefined, "/login")).toBe("/login");
    expect(safeRedirect(new File([], "f"))).toBe("/");
  });
});

describe("loginUrlFor", () => {
  it("omits oldurl for the root and encodes it otherwise", () => {
    expect(loginUrlFor("/")).toBe("/login");
    expect(loginUrlFor("/billing?tab=methods")).toBe("/login?oldurl=%2Fbilling%3Ftab%3Dmethods");
    expect(loginUrlFor("//evil.example")).toBe("/login");
  });
});
