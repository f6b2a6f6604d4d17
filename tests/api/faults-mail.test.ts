import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startApi, type TestApi } from "./harness";

// The mail server failing while someone waits for a code (decision 012): the request says it could
// not send (the screen's own words), nothing is half-made (no code that nobody received blocking the
// resend for 30 s, no account), the answer is the same for emails with and without an account, and
// the next try works as soon as the server takes mail again.

type Mode = "accept" | "refuse-sessions" | "reject-messages";

/** The text/plain part of a raw message, quoted-printable decoded (headers carry digits too). */
function plainText(raw: string): string {
  const part = raw.split(/\r?\n--[^\r\n]+\r?\n/).find((p) => /Content-Type:\s*text\/plain/i.test(p)) ?? "";
  const body = part.split(/\r?\n\r?\n/).slice(1).join("\n");
  return body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** A real SMTP server (smtp-server) on a loopback port whose behaviour the test switches. */
async function startSwitchableSmtp() {
  let mode: Mode = "accept";
  const received: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, callback) {
      if (mode !== "refuse-sessions") return callback();
      const error = Object.assign(new Error("Service not available, closing transmission channel"), { responseCode: 421 });
      return callback(error);
    },
    onMailFrom(_address, _session, callback) {
      if (mode !== "reject-messages") return callback();
      const error = Object.assign(new Error("Requested action aborted: local error in processing"), { responseCode: 451 });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received,
    set: (next: Mode) => {
      mode = next;
    },
    /** The code of the last email to `to`, waiting for it to arrive (live mail is sent in the background). */
    async codeFor(to: string, after: number): Promise<string> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const mail = received.slice(after).find((m) => m.to.includes(to));
        const code = mail && /\b(\d{6})\b/.exec(plainText(mail.raw))?.[1];
        if (code) return code;
        if (Date.now() > deadline) throw new Error(`no code arrived for ${to}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const SIGNUP_FAILED = "Failed to send signup token!";
const LOGIN_CODE_FAILED = "Failed to get login code!";
const RESET_FAILED = "Failed to send reset password email";

describe.each(databases())("the mail server failing ($name)", (kind) => {
  let smtp: Awaited<ReturnType<typeof startSwitchableSmtp>>;
  let t: TestApi;
  beforeAll(async () => {
    smtp = await startSwitchableSmtp();
    t = await startApi(kind, { env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, CODE_MAX_PER_IP_PER_HOUR: "1000" } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const codeRows = (email: string) => t.db.selectFrom("verification_codes").selectAll().where("email", "=", email).execute();

  it("sign-up: 'Failed to send signup token!', no code and no account; the retry right after works", async () => {
    const email = "signup-mail-down@example.com";
    smtp.set("refuse-sessions");
    const failed = await t.post("/api/user/temp-signup", { json: { email } });
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe(SIGNUP_FAILED);
    expect(await codeRows(email)).toEqual([]);
    expect(await t.db.selectFrom("users").select("id").where("email", "=", email).execute()).toEqual([]);

    smtp.set("accept");
    const before = smtp.received.length;
    const sent = await t.post("/api/user/temp-signup", { json: { email } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.message).toBe("Verification code sent to your email!");
    const code = await smtp.codeFor(email, before);
    const verified = await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } });
    expect(verified.status, verified.text).toBe(200);
  });

  it("code sign-in and forgot password answer the same failure for an account and for an unknown email", async () => {
    await t.createUser({ email: "known-mail-down@example.com", password: "known-password" });
    smtp.set("refuse-sessions");
    for (const email of ["known-mail-down@example.com", "unknown-mail-down@example.com"]) {
      const login = await t.post("/api/auth/get-login-code", { json: { email } });
      expect([login.status, login.body.message], email).toEqual([502, LOGIN_CODE_FAILED]);
      const reset = await t.post("/api/auth/forgot-password", { json: { email } });
      expect([reset.status, reset.body.message], email).toEqual([502, RESET_FAILED]);
      expect(await codeRows(email)).toEqual([]);
    }

    smtp.set("accept");
    const before = smtp.received.length;
    const login = await t.post("/api/auth/get-login-code", { json: { email: "known-mail-down@example.com" } });
    expect(login.status, login.text).toBe(200);
    const code = await smtp.codeFor("known-mail-down@example.com", before);
    const signedIn = await t.post("/api/auth/code-login", { json: { email: "known-mail-down@example.com", code } });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.data.token).toEqual(expect.any(String));
  });

  it("a resend that cannot be sent leaves the code already received working", async () => {
    const email = "resend-mail-down@example.com";
    const before = smtp.received.length;
    expect((await t.post("/api/user/temp-signup", { json: { email } })).status).toBe(200);
    const first = await smtp.codeFor(email, before);
    t.clock.advanceSeconds(31);
    try {
      smtp.set("refuse-sessions");
      const resend = await t.post("/api/user/temp-signup", { json: { email } });
      expect([resend.status, resend.body.message]).toEqual([502, SIGNUP_FAILED]);
      smtp.set("accept");
      const verified = await t.post("/api/user/verify-temp-code", { json: { email, verification_code: first } });
      expect(verified.status, verified.text).toBe(200);
    } finally {
      t.clock.reset();
    }
  });

  it("a message the server takes a session for but then rejects: the code is withdrawn, so the resend is not held for 30 s", async () => {
    const email = "message-rejected@example.com";
    smtp.set("reject-messages");
    // The session check passes, so the answer is the usual one (the send itself runs in the background).
    const first = await t.post("/api/user/temp-signup", { json: { email } });
    expect(first.status, first.text).toBe(200);
    // When the send fails, the code nobody received goes.
    const deadline = Date.now() + 10_000;
    while ((await codeRows(email)).length > 0) {
      if (Date.now() > deadline) throw new Error("the code of the failed send was not withdrawn");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(t.logger.lines.join("\n")).toMatch(/Mail to message-rejected@example.com \(Your verification code\) could not be sent/);

    smtp.set("accept");
    const before = smtp.received.length;
    const resend = await t.post("/api/user/temp-signup", { json: { email } });
    expect(resend.status, resend.text).toBe(200);
    const code = await smtp.codeFor(email, before);
    expect((await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } })).status).toBe(200);
    expect(await t.db.selectFrom("users").select("id").where("email", "=", email).execute()).toEqual([]);
  });
});

describe("the mail server down altogether", () => {
  it("a refused connection answers the failure at once", async () => {
    const [sqlite] = databases();
    // Nothing listens on port 9 of loopback (discard): the connection is refused.
    const t = await startApi(sqlite!, { env: { SMTP_URL: "smtp://127.0.0.1:9" } });
    try {
      const started = Date.now();
      const res = await t.post("/api/auth/forgot-password", { json: { email: "nobody-home@example.com" } });
      expect([res.status, res.body.message]).toEqual([502, RESET_FAILED]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await t.db.selectFrom("verification_codes").selectAll().execute()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
