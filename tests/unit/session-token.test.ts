import { beforeAll, describe, expect, it } from "vitest";
import { setPortalConfigForTests } from "./portal-config";

// The session cookie's token, kept once read (app/utils/session.server.ts, issue 31): the same answers as
// reading the cookie each time, for good, altered and missing cookies, however often they are asked.
let sessions: typeof import("../../app/utils/session.server");
beforeAll(async () => {
  setPortalConfigForTests({ SESSION_SECRET: "session-token-test-secret-0123456789abcdef", PUBLIC_URL: "http://portal.test" });
  sessions = await import("../../app/utils/session.server");
});

const requestWith = (cookie: string | null) => new Request("http://portal.test/", cookie === null ? {} : { headers: { Cookie: cookie } });
const cookieOf = async (token: string) => (await sessions.commitTokenSession(requestWith(null), token)).split(";")[0]!;

describe("the session cookie's token", () => {
  it("is the token the cookie was signed with, every time, beside other cookies", async () => {
    const cookie = await cookieOf("token-a");
    for (let i = 0; i < 3; i++) expect(await sessions.getSessionToken(requestWith(`device=1; ${cookie}; toast=x`))).toBe("token-a");
    expect(await sessions.getSessionToken(requestWith(cookie))).toBe("token-a");
  });

  it("is none for a cookie altered by a byte, missing, or of another name, after the good one was read", async () => {
    const cookie = await cookieOf("token-b");
    expect(await sessions.getSessionToken(requestWith(cookie))).toBe("token-b");
    const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
    const altered = `${name}=${value.slice(0, -2)}${value.at(-2) === "A" ? "B" : "A"}${value.at(-1)}`;
    expect(await sessions.getSessionToken(requestWith(altered))).toBeNull();
    expect(await sessions.getSessionToken(requestWith(altered))).toBeNull();
    expect(await sessions.getSessionToken(requestWith(null))).toBeNull();
    expect(await sessions.getSessionToken(requestWith(`x${name}=${value}`))).toBeNull();
    expect(await sessions.getSessionToken(requestWith(`${name}=`))).toBeNull();
  });

  it("still reads the oldest cookie right after more than the kept number were read", async () => {
    const first = await cookieOf("token-first");
    expect(await sessions.getSessionToken(requestWith(first))).toBe("token-first");
    for (let i = 0; i < 1100; i++) await sessions.getSessionToken(requestWith(await cookieOf(`token-${i}`)));
    expect(await sessions.getSessionToken(requestWith(first))).toBe("token-first");
  });
});
