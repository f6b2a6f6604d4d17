import { describe, expect, it } from "vitest";
import { deletionFailureKey } from "../../api/identity/account-deletion";
import { LoginThrottle } from "../../api/platform/rate-limit";
import { currentCode, secondFactorFailureKey, secondFactorStreakKey } from "../../api/identity/two-factor";
import { databases, type TestResponse, useApi } from "./harness";

// Issue 17 (security review, "Medium"): limits that a parallel burst or a fresh challenge used to get
// around. The defaults apply: 10 failed sign-ins per email and address, 5 wrong deletion passwords,
// 5 wrong codes to turn two-factor off, 10 wrong second factors per account, in 15-minute windows.

const PASSWORD = "right-password-1";
const BURST = 40;
const LOGIN_LIMIT = 10;
const SECOND_FACTOR_LIMIT = 10;
const LOCKED_SIGN_IN = "Too many failed sign-in attempts. Please try again in 15 minutes.";
const LOCKED_SECOND_FACTOR = "Too many wrong authentication codes for this account. Please try again in 15 minutes.";
const INVALID_CODE = "Invalid authentication code";
const CHALLENGE_SPENT = "Too many wrong codes. Please start again.";
const ALERT_SUBJECT = "Failed two-factor sign-in attempts on your account";

/** A six-digit code that no nearby time step of the secret has. */
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2, 3].map((step) => currentCode(secret, Date.now() + step * 30_000)));
  for (const candidate of ["000000", "111111", "222222", "333333"]) if (!near.has(candidate)) return candidate;
  throw new Error("unreachable");
}

function tally(responses: TestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

describe.each(databases({ postgres: "parallel bursts against every limit" }))("limits under a burst and across challenges ($name)", (kind) => {
  const t = useApi(kind, { env: { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" } });
  let n = 0;

  const from = (ip: string) => ({ "x-forwarded-for": ip });
  const signIn = (email: string, password: string, ip: string) =>
    t.post("/api/user/login", { json: { email, password }, headers: from(ip) });
  const verify = (challenge: string, proof: { code?: string; recovery_code?: string }, ip: string) =>
    t.post("/api/user/two-factor/verify", { json: { challenge, ...proof }, headers: from(ip) });
  const count = async (key: string) =>
    Number((await t.db.selectFrom("rate_limits").select("count").where("key", "=", key).executeTakeFirst())?.count ?? 0);
  const alerts = async (email: string) => (await t.mailbox(email)).filter((mail) => mail.subject === ALERT_SUBJECT);

  async function account() {
    const email = `limits-${kind.name}-${++n}@example.com`;
    const userId = await t.createUser({ email, password: PASSWORD });
    return { email, userId };
  }

  /** An account with two-factor on (turned on through the API): its secret and recovery codes. */
  async function enrolled() {
    const { email, userId } = await account();
    const token = await t.login(email, PASSWORD, from("192.0.2.250"));
    const setup = await t.post("/api/account/two-factor/setup", { token });
    const secret: string = setup.body.data.secret;
    const enable = await t.post("/api/account/two-factor/enable", { token, json: { code: currentCode(secret), password: PASSWORD } });
    expect(enable.status).toBe(200);
    return { email, userId, token, secret, recoveryCodes: enable.body.data.recovery_codes as string[] };
  }

  async function challengeFor(email: string, ip: string): Promise<string> {
    const res = await signIn(email, PASSWORD, ip);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.two_factor_required).toBe(true);
    return res.body.data.challenge;
  }

  it(`(a) ${BURST} parallel wrong passwords from one address: exactly ${LOGIN_LIMIT} are checked, the rest get 429`, async () => {
    const { email } = await account();
    const ip = "203.0.113.10";
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => signIn(email, `wrong-${i}`, ip)));
    expect(tally(answers)).toEqual({ 401: LOGIN_LIMIT, 429: BURST - LOGIN_LIMIT });
    for (const res of answers.filter((r) => r.status === 429)) {
      expect(res.body.message).toBe(LOCKED_SIGN_IN);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(await count(LoginThrottle.emailIpKey(email, ip))).toBe(LOGIN_LIMIT);
    // The 41st, even with the right password, is refused before the password is looked at.
    expect((await signIn(email, PASSWORD, ip)).status).toBe(429);
    expect(await count(LoginThrottle.emailIpKey(email, ip))).toBe(LOGIN_LIMIT);
    // Another address is not affected.
    expect((await signIn(email, PASSWORD, "198.51.100.10")).status).toBe(200);
  });

  it(`(b) ${BURST} parallel wrong passwords on account deletion: exactly 5 are checked, the rest get 429`, async () => {
    const { email, userId } = await account();
    const token = await t.login(email, PASSWORD);
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => t.post("/api/account/delete", { token, json: { password: `guess-${i}` } })),
    );
    expect(tally(answers)).toEqual({ 422: 5, 429: BURST - 5 });
    expect(answers.find((r) => r.status === 429)!.body.message).toMatch(/^Too many wrong passwords\. Please try again in \d+ minutes\.$/);
    expect(await count(deletionFailureKey(userId))).toBe(5);
    // The right password is refused too until the window ends, and nothing was deleted.
    expect((await t.post("/api/account/delete", { token, json: { password: PASSWORD } })).status).toBe(429);
    expect((await t.get("/api/me", { token })).status).toBe(200);
  });

  it("(b) a right deletion password is given back: it never uses up a try", async () => {
    const { email, userId } = await account();
    const token = await t.login(email, PASSWORD);
    for (let i = 0; i < 4; i++) expect((await t.post("/api/account/delete", { token, json: { password: `guess-${i}` } })).status).toBe(422);
    // Make the erase fail after the password check (the tombstone email is taken): the password was right.
    const blocker = await t.createUser({ email: `deleted-account-${userId}` });
    expect((await t.post("/api/account/delete", { token, json: { password: PASSWORD } })).status).toBe(500);
    expect(await count(deletionFailureKey(userId))).toBe(4);
    await t.db.deleteFrom("users").where("id", "=", blocker).execute();
    expect((await t.post("/api/account/delete", { token, json: { password: PASSWORD } })).status).toBe(200);
  });

  it(`(c) wrong codes over fresh challenges stop at the account's budget of ${SECOND_FACTOR_LIMIT}, whoever asks`, async () => {
    const { email, userId, secret } = await enrolled();
    const wrong = wrongCode(secret);
    const statuses: number[] = [];
    // An attacker who has the password signs in again and again, from a new address each time.
    for (let round = 0; round < 4; round++) {
      const ip = `203.0.113.${100 + round}`;
      const challenge = await challengeFor(email, ip);
      for (let i = 0; i < 5; i++) {
        const res = await verify(challenge, { code: wrong }, ip);
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body.message).toBe(LOCKED_SECOND_FACTOR);
          const retryAfter = Number(res.headers.get("retry-after"));
          expect(retryAfter).toBeGreaterThan(840);
          expect(retryAfter).toBeLessThanOrEqual(900);
        } else {
          expect(res.status).toBe(422);
          expect([INVALID_CODE, CHALLENGE_SPENT]).toContain(res.body.message);
        }
      }
    }
    expect(statuses.filter((s) => s === 422)).toHaveLength(SECOND_FACTOR_LIMIT);
    expect(statuses.slice(SECOND_FACTOR_LIMIT).every((s) => s === 429)).toBe(true);
    expect(await count(secondFactorFailureKey(userId))).toBe(SECOND_FACTOR_LIMIT);

    // Until the window ends even the right code is refused; afterwards it signs in and resets the budget.
    const owner = "198.51.100.20";
    const challenge = await challengeFor(email, owner);
    const right = currentCode(secret, Date.now() + 30_000);
    expect((await verify(challenge, { code: right }, owner)).status).toBe(429);
    await t.db
      .updateTable("rate_limits")
      .set({ reset_at: new Date(Date.now() - 1000).toISOString() })
      .where("key", "=", secondFactorFailureKey(userId))
      .execute();
    const ok = await verify(challenge, { code: right }, owner);
    expect(ok.status, ok.text).toBe(200);
    expect(await count(secondFactorFailureKey(userId))).toBe(0);
    expect(await count(secondFactorStreakKey(userId))).toBe(0);
  });

  it(`(c) ${BURST} parallel wrong codes over 8 challenges: exactly ${SECOND_FACTOR_LIMIT} are checked`, async () => {
    const { email, userId, secret } = await enrolled();
    const ips = Array.from({ length: 8 }, (_, i) => `203.0.113.${150 + i}`);
    const challenges = await Promise.all(ips.map((ip) => challengeFor(email, ip)));
    const wrong = wrongCode(secret);
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => verify(challenges[i % 8]!, { code: wrong }, ips[i % 8]!)),
    );
    expect(tally(answers)).toEqual({ 422: SECOND_FACTOR_LIMIT, 429: BURST - SECOND_FACTOR_LIMIT });
    expect(await count(secondFactorFailureKey(userId))).toBe(SECOND_FACTOR_LIMIT);
  });

  it("(d) a right password alone clears no failure count; the complete sign-in does", async () => {
    const { email, recoveryCodes } = await enrolled();
    const ip = "203.0.113.40";
    for (let i = 0; i < LOGIN_LIMIT - 1; i++) expect((await signIn(email, `wrong-${i}`, ip)).status).toBe(401);
    // The password is right, but the second factor is still to come: the 9 failures stay.
    const challenge = await challengeFor(email, ip);
    expect(await count(LoginThrottle.emailIpKey(email, ip))).toBe(LOGIN_LIMIT - 1);
    expect((await signIn(email, "wrong-again", ip)).status).toBe(401);
    const locked = await signIn(email, PASSWORD, ip);
    expect(locked.status).toBe(429);
    expect(locked.body.message).toBe(LOCKED_SIGN_IN);
    // The waiting challenge is under the same limits: 429 before the code is looked at.
    expect((await verify(challenge, { recovery_code: recoveryCodes[0]! }, ip)).status).toBe(429);

    // From a fresh address: a right password, then the right second factor clears that address's count.
    const other = "203.0.113.41";
    for (let i = 0; i < 3; i++) expect((await signIn(email, `typo-${i}`, other)).status).toBe(401);
    const second = await challengeFor(email, other);
    expect(await count(LoginThrottle.emailIpKey(email, other))).toBe(3);
    expect((await verify(second, { recovery_code: recoveryCodes[1]! }, other)).status).toBe(200);
    expect(await count(LoginThrottle.emailIpKey(email, other))).toBe(0);
  });

  it("(d) the emailed-code sign-in does not clear the failure count while the second factor is outstanding", async () => {
    const { email, recoveryCodes } = await enrolled();
    const ip = "203.0.113.50";
    for (let i = 0; i < LOGIN_LIMIT; i++) expect((await signIn(email, `wrong-${i}`, ip)).status).toBe(401);
    expect((await signIn(email, PASSWORD, ip)).status).toBe(429);

    expect((await t.post("/api/auth/get-login-code", { json: { email }, headers: from(ip) })).status).toBe(200);
    const byCode = await t.post("/api/auth/code-login", { json: { email, code: await t.latestCode(email) }, headers: from(ip) });
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.two_factor_required).toBe(true);
    // Only the inbox is proven so far: the password stays locked for this address.
    expect((await signIn(email, PASSWORD, ip)).status).toBe(429);
    expect(await count(LoginThrottle.emailIpKey(email, ip))).toBe(LOGIN_LIMIT);

    // The challenge is under the same limits as the password: this address stays locked for the email.
    const res = await verify(byCode.body.data.challenge, { recovery_code: recoveryCodes[0]! }, ip);
    expect(res.status).toBe(429);
    expect(res.body.message).toBe(LOCKED_SIGN_IN);
  });

  it("(e) the owner is emailed after 5 wrong second factors in a row, across challenges, once", async () => {
    const { email, secret } = await enrolled();
    const wrong = wrongCode(secret);
    const ip = "203.0.113.60";
    const first = await challengeFor(email, ip);
    for (let i = 0; i < 3; i++) expect((await verify(first, { code: wrong }, ip)).status).toBe(422);
    const second = await challengeFor(email, ip);
    expect((await verify(second, { recovery_code: "aaaaa-aaaaa" }, ip)).status).toBe(422);
    expect(await alerts(email)).toEqual([]);

    const before = Date.now();
    expect((await verify(second, { code: wrong }, ip)).status).toBe(422);
    const sent = await alerts(email);
    expect(sent).toHaveLength(1);
    const text = sent[0]!.text;
    expect(text).toContain("Someone signed in to your account with your password, then entered a wrong two-factor authentication code 5 times in a row");
    const when = new Date(before);
    const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    expect(text).toContain(`${String(when.getUTCDate()).padStart(2, "0")} ${months[when.getUTCMonth()]}, ${when.getUTCFullYear()} at `);
    expect(text).toMatch(/at \d\d:\d\d UTC/);
    expect(text).toContain("someone knows your password. Change your password now:");
    expect(text).toContain(`${t.config.publicUrl}/forget-password`);
    expect(text).not.toMatch(/\b\d{6}\b/);

    // More wrong codes in the same run do not email again.
    expect((await verify(second, { code: wrong }, ip)).status).toBe(422);
    expect(await alerts(email)).toHaveLength(1);
  });

  it("(e) a complete sign-in ends the run: 4 wrong, a right one, 4 wrong send no email", async () => {
    const { email, secret, recoveryCodes } = await enrolled();
    const wrong = wrongCode(secret);
    const ip = "203.0.113.70";
    const first = await challengeFor(email, ip);
    for (let i = 0; i < 4; i++) expect((await verify(first, { code: wrong }, ip)).status).toBe(422);
    expect((await verify(first, { recovery_code: recoveryCodes[0]! }, ip)).status).toBe(200);
    const second = await challengeFor(email, ip);
    for (let i = 0; i < 4; i++) expect((await verify(second, { code: wrong }, ip)).status).toBe(422);
    expect(await alerts(email)).toEqual([]);
  });

  it("(f) right sign-ins always work and are never counted, with and without two-factor", async () => {
    const { email } = await account();
    const ip = "203.0.113.80";
    // More right sign-ins than any limit (each one is an argon2 verify), one after another, and a few at once.
    for (let i = 0; i < LOGIN_LIMIT + 1; i++) expect((await signIn(email, PASSWORD, ip)).status).toBe(200);
    expect(tally(await Promise.all(Array.from({ length: 5 }, () => signIn(email, PASSWORD, ip))))).toEqual({ 200: 5 });
    // A typo then the right password: the typo counts, the right one does not (and clears the address).
    expect((await signIn(email, "typo", ip)).status).toBe(401);
    expect(await count(LoginThrottle.emailKey(email))).toBe(1);
    expect((await signIn(email, PASSWORD, ip)).status).toBe(200);
    expect(await count(LoginThrottle.emailKey(email))).toBe(1);
    expect(await count(LoginThrottle.ipKey(ip))).toBe(1);
    expect(await count(LoginThrottle.emailIpKey(email, ip))).toBe(0);

    const two = await enrolled();
    const twoIp = "203.0.113.81";
    for (const recovery of two.recoveryCodes.slice(0, 6)) {
      const challenge = await challengeFor(two.email, twoIp);
      const ok = await verify(challenge, { recovery_code: recovery }, twoIp);
      expect(ok.status, ok.text).toBe(200);
    }
    const keys = [
      secondFactorFailureKey(two.userId),
      secondFactorStreakKey(two.userId),
      LoginThrottle.emailIpKey(two.email, twoIp),
      LoginThrottle.ipKey(twoIp),
      LoginThrottle.emailKey(two.email),
    ];
    expect(await t.db.selectFrom("rate_limits").select("key").where("key", "in", keys).execute()).toEqual([]);
  });

  it("turning two-factor off: a burst of wrong codes gets exactly 5 checks", async () => {
    const { token, secret } = await enrolled();
    const wrong = wrongCode(secret);
    const answers = await Promise.all(
      Array.from({ length: BURST }, () => t.post("/api/account/two-factor/disable", { token, json: { code: wrong } })),
    );
    expect(tally(answers)).toEqual({ 422: 5, 429: BURST - 5 });
  });
});
