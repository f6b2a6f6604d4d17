import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../api/http/error-status";
import { DomainError, ERROR_CODES, FAILURE_CODES, isRefusal } from "../../api/platform/errors";

// Domain errors carry a code, the HTTP layer maps it to a status in one table (docs/decisions/023).
// The types make the table complete; these checks hold it to the codes the source throws.

const API = fileURLToPath(new URL("../../api/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "sandboxes" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("error codes", () => {
  it("every code has one status, an error status, and the table has no other codes", () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) {
      expect(code, code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      const { status, description } = ERROR_STATUS[code];
      expect(status >= 400 && status < 600, `${code}: ${status}`).toBe(true);
      expect(description.length, code).toBeGreaterThan(0);
    }
  });

  it("the failures (not the request's fault, never replayed) are exactly the 5xx codes", () => {
    const serverSide = ERROR_CODES.filter((code) => ERROR_STATUS[code].status >= 500);
    expect([...FAILURE_CODES].sort()).toEqual(serverSide.sort());
    expect(isRefusal(new DomainError("card_declined", "Your card was declined."))).toBe(true);
    expect(isRefusal(new DomainError("gateway_failed", "Failed to create Stripe payment"))).toBe(false);
    expect(isRefusal(new Error("boom"))).toBe(false);
  });

  it("every code the API's source names is in the table", () => {
    // new DomainError("code", ...), sendError(res, "code", ...), the helpers that pass a code on, and
    // the refusals written as objects (stored payment answers, refund eligibility).
    const named = /(?:DomainError\(|sendError\(res, |fieldError\(|codeError\(|refuse\()"([a-z_]+)"|(?:body: \{|ok: false,) code: "([a-z_]+)"/g;
    const found = new Set<string>();
    for (const file of sourceFiles(API)) {
      for (const match of readFileSync(file, "utf8").matchAll(named)) found.add((match[1] ?? match[2])!);
    }
    expect(found.size).toBeGreaterThan(30);
    const known = new Set<string>(ERROR_CODES);
    expect([...found].filter((code) => !known.has(code))).toEqual([]);
  });

  it("a field's message is its per-field message", () => {
    const error = new DomainError("email_taken", "An account with this email already exists.", { field: "email" });
    expect(error.fields).toEqual({ email: ["An account with this email already exists."] });
    expect(new DomainError("not_found", "Not found.").fields).toBeUndefined();
  });
});
