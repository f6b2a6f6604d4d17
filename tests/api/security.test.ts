import { describe, expect, it } from "vitest";
import { databases, type TestApi, type TestResponse, useApi } from "./harness";
import { customer, newKey } from "./payment-support";
import { uniqueEmail } from "../support/emails";

// Hostile input against the API (DESIGN §4). What the other suites already cover stays there: the
// login limits and their sources in rate-limit.test.ts, the code rules in codes.test.ts, SSO tokens in
// sso.test.ts. Here: codes burnt for every purpose, the payment limit, no account enumeration (answers
// and timing), and no cross-origin allowance.

const INVALID = "Invalid verification code";
const BURNT = "Too many wrong attempts. Please request a new code.";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed(send: () => Promise<TestResponse>): Promise<{ ms: number; res: TestResponse }> {
  const started = performance.now();
  const res = await send();
  return { ms: performance.now() - started, res };
}

/**
 * Sends `tries` pairs, known and unknown interleaved (so machine load hits both alike), checks that
 * every answer is the `expected` one (so that two equal failures cannot pass) and that every pair gets
 * the same status and body, and returns the median time of each.
 */
async function comparePairs(
  tries: number,
  expected: { status: number; message: string | RegExp },
  pair: (i: number) => [() => Promise<TestResponse>, () => Promise<TestResponse>],
) {
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < tries; i++) {
    const [sendKnown, sendUnknown] = pair(i);
    // Alternate which goes first, so that neither always meets a warm cache.
    const [a, b] = i % 2 ? [await timed(sendUnknown), await timed(sendKnown)].reverse() : [await timed(sendKnown), await timed(sendUnknown)];
    expect(a!.res.status).toBe(expected.status);
    expect(String(a!.res.body?.message)).toMatch(expected.message);
    expect([b!.res.status, b!.res.body]).toEqual([a!.res.status, a!.res.body]);
    known.push(a!.ms);
    unknown.push(b!.ms);
  }
  return { known: median(known), unknown: median(unknown) };
}

/**
 * The two medians are alike: within a factor of 2 of each other, or 20 ms apart at most for answers
 * so quick that scheduling noise on a loaded 2-core machine is the larger part. A leak worth having
 * (an argon2 verify skipped, an email sent inline) is several times that.
 */
function expectSimilarTiming(medians: { known: number; unknown: number }, label: string) {
  const slow = Math.max(medians.known, medians.unknown);
  const fast = Math.min(medians.known, medians.unknown);
  if (process.env.PRINT_TIMING) console.info(`${label}: known ${medians.known.toFixed(1)} ms, unknown ${medians.unknown.toFixed(1)} ms`);
  const detail = `${label}: known ${medians.known.toFixed(1)} ms, unknown ${medians.unknown.toFixed(1)} ms`;
  expect(slow <= 2 * fast || slow - fast <= 20, detail).toBe(true);
}

describe.each(databases())("no account enumeration ($name)", (kind) => {
  // At the product's argon2id cost: a skipped verification is found by the time it would have taken.
  const t = useApi(kind, {
    productPasswords: true,
    env: {
      LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "1000",
      LOGIN_MAX_FAILURES_PER_IP: "1000",
      LOGIN_MAX_FAILURES_PER_EMAIL: "1000",
      CODE_MAX_PER_IP_PER_HOUR: "1000",
      CODE_MAX_PER_EMAIL_PER_HOUR: "1000",
    },
  });
  const TRIES = 9;

  it("password sign-in: a known email with a wrong password, a password-less account and an unknown email look the same", async () => {
    const known = uniqueEmail("known");
    const passwordless = uniqueEmail("google-only");
    await t.createUser({ email: known, password: "the-right-password" });
    await t.createUser({ email: passwordless, password: null });
    const login = (email: string) => () => t.post("/api/user/login", { json: { email, password: "a-wrong-password" } });

    const refused = { status: 401, message: "These credentials do not match our records." };
    const medians = await comparePairs(TRIES, refused, (i) => [login(known), login(uniqueEmail(`unknown-${i}`))]);
    expectSimilarTiming(medians, "password sign-in");
    const withoutPassword = await comparePairs(TRIES, refused, (i) => [login(passwordless), login(uniqueEmail(`unknown-b-${i}`))]);
    expectSimilarTiming(withoutPassword, "password sign-in, account without a password");
    const answer = await login(known)();
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBe("These credentials do not match our records.");
  });

  it("code requests, forgot password and sign-up answer the same, in similar time, for known and unknown emails", async () => {
    for (const path of ["/api/auth/get-login-code", "/api/auth/forgot-password", "/api/user/temp-signup"]) {
      // A fresh email each time: the 30 s resend gate is per email (and is itself the same for both).
      const knownEmails: string[] = [];
      for (let i = 0; i < TRIES; i++) {
        const email = uniqueEmail("known-code");
        await t.createUser({ email, password: null });
        knownEmails.push(email);
      }
      const send = (email: string) => () => t.post(path, { json: { email } });
      const medians = await comparePairs(TRIES, { status: 200, message: /\S/ }, (i) => [send(knownEmails[i]!), send(uniqueEmail("unknown-code"))]);
      expectSimilarTiming(medians, path);
    }
  });

  it("email-is-exists answers the same, in similar time", async () => {
    const known = uniqueEmail("exists");
    await t.createUser({ email: known, password: "password-123" });
    const check = (email: string) => () => t.post("/api/anonymous/subscription/email-is-exists", { json: { email } });
    const medians = await comparePairs(TRIES, { status: 200, message: /\S/ }, () => [check(known), check(uniqueEmail("absent"))]);
    expectSimilarTiming(medians, "email-is-exists");
  });
});

describe.each(databases())("codes are burnt after 5 wrong tries, for every purpose ($name)", (kind) => {
  const t = useApi(kind, { env: { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" } });

  const purposes: Array<{
    name: string;
    send: (t: TestApi, email: string) => Promise<TestResponse>;
    use: (t: TestApi, email: string, code: string) => Promise<TestResponse>;
    field: string;
  }> = [
    {
      name: "sign-in",
      send: (t, email) => t.post("/api/auth/get-login-code", { json: { email } }),
      use: (t, email, code) => t.post("/api/auth/code-login", { json: { email, code } }),
      field: "code",
    },
    {
      name: "password reset",
      send: (t, email) => t.post("/api/auth/forgot-password", { json: { email } }),
      use: (t, email, code) => t.post("/api/auth/reset-password-by-code", { json: { email, code } }),
      field: "code",
    },
    {
      name: "sign-up",
      send: (t, email) => t.post("/api/user/temp-signup", { json: { email } }),
      use: (t, email, code) => t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } }),
      field: "verification_code",
    },
  ];

  for (const purpose of purposes) {
    it(`${purpose.name}: the 6th try fails even with the right code, and a new code works`, async () => {
      const email = uniqueEmail(purpose.name.replace(/\W/g, ""));
      if (purpose.name !== "sign-up") await t.createUser({ email, password: "password-123" });
      expect((await purpose.send(t, email)).status).toBe(200);
      const code = await t.latestCode(email);
      const wrong = code === "000000" ? "111111" : "000000";
      for (let i = 0; i < 5; i++) {
        const res = await purpose.use(t, email, wrong);
        expect(res.status).toBe(422);
        expect(res.body.errors.fields[purpose.field]).toEqual([INVALID]);
      }
      const burnt = await purpose.use(t, email, code);
      expect(burnt.status).toBe(422);
      expect(burnt.body.message).toBe(BURNT);
      expect(burnt.body.errors.fields[purpose.field]).toEqual([BURNT]);

      t.clock.advanceSeconds(31);
      expect((await purpose.send(t, email)).status).toBe(200);
      expect((await purpose.use(t, email, await t.latestCode(email))).status).toBe(200);
    });
  }
});

describe.each(databases())("payment attempts are limited per account ($name)", (kind) => {
  const t = useApi(kind);
  const LIMIT = 20;
  const TOO_MANY = "Too many payment attempts. Please try again later.";

  it(`${LIMIT} attempts an hour, card and hosted page together; then 429 with Retry-After; other accounts are not affected`, async () => {
    const payer = await customer(t, uniqueEmail("payer"));
    const start = (token: string) =>
      t.post("/api/payments/checkout-session", {
        token,
        json: { planId: 1, idempotency_key: newKey(), return_path: "/subscription/payment/1" },
      });
    for (let i = 0; i < LIMIT; i++) expect((await start(payer.token)).status, `attempt ${i + 1}`).toBe(200);

    const limited = await start(payer.token);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ status: false, success: false, message: TOO_MANY, errors: { message: TOO_MANY, code: "rate_limited" } });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // A card payment shares the count, and is refused before the card is looked at.
    const card = await t.post("/api/payments/card", {
      token: payer.token,
      json: { planId: 1, type: "new-card", paymentMethodId: "pm_not_looked_at", email: payer.email, idempotency_key: newKey() },
    });
    expect(card.status).toBe(429);
    expect(card.body.message).toBe(TOO_MANY);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", payer.userId).execute()).toEqual([]);

    const other = await customer(t, uniqueEmail("other-payer"));
    expect((await start(other.token)).status).toBe(200);
  });
});

describe.each(databases())("the API allows no other origin ($name)", (kind) => {
  const t = useApi(kind);

  it("answers a cross-origin preflight and request without CORS headers", async () => {
    const preflight = await t.request("OPTIONS", "/api/user/login", {
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
      notTheApi: true,
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
    const res = await t.post("/api/user/login", {
      json: { email: "demo@example.com", password: "wrong-password" },
      headers: { Origin: "https://evil.example" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
