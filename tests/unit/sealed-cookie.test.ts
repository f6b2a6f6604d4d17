import { createCookieSessionStorage } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { createSealedCookie, portalCookieName, seal, sealingKeys, unseal } from "../../app/utils/cookies.server";

// The sealed cookies that carry the flows' secrets and the desktop hand-off's token (docs/decisions/018).
const OLD = "old-secret-0123456789abcdef0123456789abcdef";
const NEW = "new-secret-0123456789abcdef0123456789abcdef";
const SECRET_CONTENT = { recoveryCodes: ["abcd-efgh-1111", "ijkl-mnop-2222"], reset: { email: "pat@example.com", resetToken: "reset-token-xyz" } };

/** The cookie's value as a browser stores it (the part after name=, before the attributes). */
function cookieValueOf(setCookie: string, name: string): string {
  const match = new RegExp(`^${name}=([^;]*)`).exec(setCookie);
  expect(match, setCookie).toBeTruthy();
  return match![1]!;
}

/** Every readable form of a cookie value: as sent, URL-decoded, and base64-decoded (twice). */
function readableForms(value: string): string {
  const decoded = decodeURIComponent(value);
  const once = Buffer.from(decoded, "base64").toString("latin1");
  const inner = once.replace(/^"|"$/g, "").replace(/^v1\./, "");
  return [value, decoded, once, Buffer.from(inner, "base64url").toString("latin1")].join("\n");
}

describe("sealed cookies", () => {
  it("round-trips a value and hides it: nothing of it is readable in the cookie", async () => {
    const cookie = createSealedCookie("__flow", { secrets: [NEW], ttlSeconds: 3600, path: "/", httpOnly: true, sameSite: "lax" });
    const header = await cookie.serialize(SECRET_CONTENT);
    const value = cookieValueOf(header, "__flow");
    for (const secret of ["abcd-efgh-1111", "reset-token-xyz", "pat@example.com", "recoveryCodes"]) {
      expect(readableForms(value)).not.toContain(secret);
    }
    expect(await cookie.parse(`__flow=${value}`)).toEqual(SECRET_CONTENT);
    // A fresh IV every time: the same content never makes the same cookie.
    expect(cookieValueOf(await cookie.serialize(SECRET_CONTENT), "__flow")).not.toBe(value);
  });

  it("is a session cookie (no Max-Age, no Expires) unless asked otherwise", async () => {
    const flow = createSealedCookie("__flow", { secrets: [NEW], ttlSeconds: 3600, path: "/" });
    const header = await flow.serialize({ a: 1 });
    expect(header).not.toMatch(/max-age|expires/i);
    const handoff = createSealedCookie("__desktop_handoff", { secrets: [NEW], ttlSeconds: 300, maxAge: 300, path: "/" });
    expect(await handoff.serialize({ a: 1 })).toMatch(/Max-Age=300/);
  });

  it("refuses a value altered anywhere, truncated, or made up", async () => {
    const cookie = createSealedCookie("__flow", { secrets: [NEW], ttlSeconds: 3600 });
    const keys = sealingKeys([NEW]);
    const sealed = seal(SECRET_CONTENT, { keys, name: "__flow", ttlSeconds: 3600 });
    expect(unseal(sealed, { keys, name: "__flow" })).toEqual(SECRET_CONTENT);
    const bytes = Buffer.from(sealed.slice(3), "base64url");
    for (let i = 0; i < bytes.length; i++) {
      const altered = Buffer.from(bytes);
      altered[i]! ^= 0x01;
      expect(unseal(`v1.${altered.toString("base64url")}`, { keys, name: "__flow" }), `byte ${i}`).toBeNull();
    }
    expect(unseal(sealed.slice(0, -4), { keys, name: "__flow" })).toBeNull();
    expect(unseal("v1.", { keys, name: "__flow" })).toBeNull();
    expect(unseal("not-sealed", { keys, name: "__flow" })).toBeNull();
    // A signed cookie of the old format (base64 JSON and an HMAC) is no flow at all.
    const unsigned = Buffer.from(JSON.stringify(SECRET_CONTENT)).toString("base64");
    expect(await cookie.parse(`__flow=${encodeURIComponent(unsigned)}.c2ln`)).toBeNull();
    expect(await cookie.parse("__flow=garbage%%")).toBeNull();
    expect(await cookie.parse(null)).toBeNull();
  });

  it("refuses a value sealed for another cookie, or with another secret", async () => {
    const keys = sealingKeys([NEW]);
    const handoff = seal({ token: "bearer" }, { keys, name: "__desktop_handoff", ttlSeconds: 300 });
    expect(unseal(handoff, { keys, name: "__flow" })).toBeNull();
    expect(unseal(handoff, { keys: sealingKeys(["some-other-secret-0123456789abcdef0123"]), name: "__desktop_handoff" })).toBeNull();
  });

  it("expires on the server after its time, whatever the browser keeps", () => {
    const keys = sealingKeys([NEW]);
    const now = Date.now();
    const sealed = seal({ step: 2 }, { keys, name: "__flow", ttlSeconds: 3600, now });
    expect(unseal(sealed, { keys, name: "__flow", now: now + 3599_000 })).toEqual({ step: 2 });
    expect(unseal(sealed, { keys, name: "__flow", now: now + 3600_000 })).toBeNull();
  });

  it("rotates like the signing secrets: the first secret seals, every listed secret opens", async () => {
    const before = createSealedCookie("__flow", { secrets: [OLD], ttlSeconds: 3600 });
    const during = createSealedCookie("__flow", { secrets: [NEW, OLD], ttlSeconds: 3600 });
    const after = createSealedCookie("__flow", { secrets: [NEW], ttlSeconds: 3600 });
    const oldValue = cookieValueOf(await before.serialize({ step: 1 }), "__flow");
    expect(await during.parse(`__flow=${oldValue}`)).toEqual({ step: 1 });
    // Re-sealed with the new secret, it outlives the old one.
    const newValue = cookieValueOf(await during.serialize({ step: 1 }), "__flow");
    expect(await after.parse(`__flow=${newValue}`)).toEqual({ step: 1 });
    expect(await before.parse(`__flow=${newValue}`)).toBeNull();
    expect(await after.parse(`__flow=${oldValue}`)).toBeNull();
  });

  it("works as a session storage's cookie, whose destroy clears it", async () => {
    const storage = createCookieSessionStorage({ cookie: createSealedCookie("__flow", { secrets: [NEW], ttlSeconds: 3600, path: "/" }) });
    const session = await storage.getSession(null);
    session.set("reset", SECRET_CONTENT.reset);
    const header = await storage.commitSession(session);
    const again = await storage.getSession(`other=1; __flow=${cookieValueOf(header, "__flow")}`);
    expect(again.get("reset")).toEqual(SECRET_CONTENT.reset);
    expect(await storage.destroySession(again)).toMatch(/^__flow=; .*Expires=Thu, 01 Jan 1970/);
  });
});

describe("portal cookie names", () => {
  it("carry the __Host- prefix with secure cookies, and keep their names on plain http", () => {
    expect(portalCookieName("__session", true)).toBe("__Host-session");
    expect(portalCookieName("__flow", true)).toBe("__Host-flow");
    expect(portalCookieName("toast-session", true)).toBe("__Host-toast-session");
    expect(portalCookieName("__desktop_handoff", true)).toBe("__Host-desktop_handoff");
    expect(portalCookieName("__session", false)).toBe("__session");
  });
});
