import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { E2E_SERVER_LOG, TEST_PASSWORDS, withDatabase } from "../support/e2e";
import { TEST_CARD_NUMBERS } from "../support/cards";

// The log scan. The "logs" project runs after every other project (playwright.config.ts), so the e2e
// server's stdout in E2E_SERVER_LOG holds the whole run: it must be JSON lines, every request line
// with its request id, the portal's id on the API's lines, and no password, code, token or card
// number that the run used.

type LogLine = Record<string, unknown> & { level: string; time: string; msg: string };

const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:=+/-]{0,63}$/;
/** The shape of bearer, SSO and set-password tokens (api/platform/tokens.ts: 32 random bytes, base64url). */
const TOKEN_SHAPE = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

function readLog(): { text: string; lines: LogLine[] } {
  const text = fs.readFileSync(E2E_SERVER_LOG, "utf8");
  const lines = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`line ${index + 1} of ${E2E_SERVER_LOG} is not JSON: ${line.slice(0, 200)}`);
      }
    });
  return { text, lines };
}

/**
 * Whether a secret occurs in `text`: a number only as a whole run of digits standing alone (not six digits inside an
 * id, such as a UUID like be521945-... in a logged path), anything else as it is. The numbers are gathered once: a
 * regular expression per code over the whole log (a thousand codes, megabytes of log) took 6-7 s at the end of the
 * run, with every other test done (issue 31).
 */
function occursIn(text: string): (secret: string) => boolean {
  const numbers = new Set(text.match(/(?<![0-9A-Za-z])\d+(?![0-9A-Za-z])/g) ?? []);
  return (secret) => (/^\d+$/.test(secret) ? numbers.has(secret) : text.includes(secret));
}

test("the portal passes its request id to the API, and answers with it", async ({ page, baseURL }) => {
  // A cookie makes the page render (anonymous visitors without one get the few seconds' cached copy,
  // which makes no API call).
  await page.context().addCookies([{ name: "visited", value: "1", url: baseURL! }]);
  const response = await page.goto("/pricing");
  const reqId = response?.headers()["x-request-id"] ?? "";
  expect(reqId).toMatch(REQUEST_ID);
  // The page's line (portal) and the plans call its loader made (API) carry the same id.
  await expect
    .poll(() =>
      readLog()
        .lines.filter((line) => line.reqId === reqId)
        .map((line) => `${line.name} ${line.method} ${line.path} ${line.status}`),
    )
    .toEqual(expect.arrayContaining(["portal GET /pricing 200", "api GET /api/plans 200"]));
});

test("a request id from a client that is not a trusted proxy is replaced", async ({ request }) => {
  // The e2e server has no TRUST_PROXY: the browser's own X-Request-Id is not believed.
  const response = await request.get("/pricing", { headers: { "X-Request-Id": "forged-by-the-client" } });
  const reqId = response.headers()["x-request-id"] ?? "";
  expect(reqId).toMatch(REQUEST_ID);
  expect(reqId).not.toBe("forged-by-the-client");
  await expect.poll(() => readLog().lines.some((line) => line.reqId === reqId && line.path === "/pricing")).toBe(true);
  expect(readLog().text).not.toContain("forged-by-the-client");
});

/** The specs and what they share (tests/support: the accounts, the page states), every file but this one. */
function specSources(): string[] {
  const dirs = [fileURLToPath(new URL(".", import.meta.url)), fileURLToPath(new URL("../support/", import.meta.url))];
  return dirs.flatMap((dir) =>
    fs
      .readdirSync(dir)
      .filter((name) => name.endsWith(".ts") && name !== "logs.spec.ts")
      .map((name) => fs.readFileSync(path.join(dir, name), "utf8")),
  );
}

test("the password list covers every password the specs use", () => {
  const sources = specSources();
  const used = new Set<string>();
  for (const source of sources) {
    const typed = source.matchAll(/getByLabel\(\s*"(?:Confirm |New |Current )?Password"[^)]*\)\s*\.fill\(\s*"([^"]+)"/g);
    const sent = source.matchAll(/\bpassword\w*\s*(?::|=|\?\?)\s*"([^"]+)"/gi);
    for (const [, password] of [...typed, ...sent]) if (password && password.length >= 8) used.add(password);
  }
  expect(used.size).toBeGreaterThan(5);
  expect([...used].filter((password) => !TEST_PASSWORDS.includes(password))).toEqual([]);
  // Test email addresses ('google-first-password-1a2b…@example.com') may be logged; one that shares a
  // password's words would read as a leaked password in the scan below.
  const emailPrefixes = new Set<string>();
  for (const source of sources) {
    for (const [, prefix] of source.matchAll(/uniqueEmail\(\s*"([^"]+)"/g)) emailPrefixes.add(prefix!);
  }
  // Whether some address `${prefix}-XXXXXXXX@example.com` (X a hex digit, uniqueEmail in tests/support/emails.ts) contains the password.
  const canContain = (prefix: string, password: string) => {
    const pattern = [...`${prefix}-`].map((c) => [c]).concat(Array(8).fill([..."0123456789abcdef"]), [..."@example.com"].map((c) => [c]));
    return pattern.some((_, start) => [...password].every((c, i) => pattern[start + i]?.includes(c)));
  };
  const risky = [...emailPrefixes].flatMap((prefix) => TEST_PASSWORDS.filter((password) => canContain(prefix, password)).map((password) => `${prefix} ~ ${password}`));
  expect(risky).toEqual([]);
});

test("the whole run's log is JSON lines with request ids, and holds no secret the tests used", async () => {
  const { text, lines } = readLog();
  const requests = lines.filter((line) => typeof line.status === "number");
  // The run made hundreds of requests; each has its line with its id.
  expect(requests.length).toBeGreaterThan(200);
  expect(requests.filter((line) => typeof line.reqId !== "string" || !REQUEST_ID.test(line.reqId))).toEqual([]);
  expect(new Set(requests.map((line) => line.name))).toEqual(new Set(["portal", "api"]));
  // One assertion over every line (an expect per line, some 15,000 of them, took seconds at the end of the run).
  expect(lines.filter((line) => !["level", "time", "msg"].every((key) => key in line))).toEqual([]);

  // Codes and set-password links from every email of the run (the outbox), not just the newest.
  const mails = await withDatabase((db) => db.selectFrom("mail_outbox").select("text").execute());
  const codes = new Set(mails.flatMap((mail) => mail.text.match(/(?<!\d)\d{6}(?!\d)/g) ?? []));
  const linkTokens = new Set(mails.flatMap((mail) => [...mail.text.matchAll(/\/(?:generate-password|email-revert)\/([^\s/?#]+)/g)].map((m) => m[1]!)));
  expect(codes.size).toBeGreaterThan(0);
  expect(linkTokens.size).toBeGreaterThan(0);

  const cards = TEST_CARD_NUMBERS.flatMap((number) => [number, number.replace(/ /g, "")]);
  const secrets = [...TEST_PASSWORDS, ...cards, ...codes, ...linkTokens];
  // Each secret found, with the first line that holds it (an email address built from a password-like
  // word once matched a password: test emails never contain one, see the password-list test above).
  const found = secrets.filter(occursIn(text));
  expect(found.map((secret) => `${secret}: ${text.split("\n").find((line) => occursIn(line)(secret))?.slice(0, 300)}`)).toEqual([]);
  // Bearer and SSO tokens: nothing of their shape, no Authorization or Cookie header.
  expect(text.match(TOKEN_SHAPE) ?? []).toEqual([]);
  expect(text).not.toMatch(/Bearer\s|"(authorization|cookie|set-cookie)"/i);
});
