import express from "express";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alreadyRegisteredEmail,
  loginCodeEmail,
  passwordChangedEmail,
  passwordSetEmail,
  resetCodeEmail,
  setPasswordLinkEmail,
  signupCodeEmail,
} from "../../api/identity/emails";
import { SmtpMailer } from "../../api/platform/mailer";
import { codeIn, databases, listen, request, startApi, useApi } from "./harness";

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };

describe.each(databases())("mail sandbox ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  it("stores every email in the outbox; /dev/mailbox.json filters without regard to case, newest first", async () => {
    expect((await t.post("/api/user/temp-signup", { json: { email: "Mixed.Case@Example.com" } })).status).toBe(200);
    expect((await t.post("/api/user/temp-signup", { json: { email: "other@example.com" } })).status).toBe(200);
    t.clock.advanceSeconds(31);
    expect((await t.post("/api/user/temp-signup", { json: { email: "mixed.case@example.com" } })).status).toBe(200);

    const all = await t.mailbox();
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all[0]).toEqual({
      to: "mixed.case@example.com",
      subject: "Your verification code",
      text: expect.any(String),
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(all[1]!.to).toBe("other@example.com");

    for (const query of ["MIXED.CASE@EXAMPLE.COM", "mixed.case@example.com", "  Mixed.Case@example.COM "]) {
      const mine = await t.mailbox(query);
      expect(mine.map((m) => m.to)).toEqual(["mixed.case@example.com", "mixed.case@example.com"]);
      expect(mine[0]!.sentAt > mine[1]!.sentAt).toBe(true);
    }
    const res = await t.get("/dev/mailbox.json?to=nobody@example.com");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("lists the emails as a plain HTML page (escaped, no scripts, no inline styles)", async () => {
    await t.post("/api/user/temp-signup", { json: { email: "page@example.com" } });
    const res = await t.get("/dev/mailbox");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.text).toContain("page@example.com");
    expect(res.text).toContain("Your verification code");
    expect(res.text).toContain(codeIn((await t.mailbox("page@example.com"))[0]!.text));
    expect(res.text).not.toMatch(/<script|style=|<style/i);
    const filtered = await t.get("/dev/mailbox?to=PAGE@example.com");
    expect(filtered.text).toContain("page@example.com");
    expect(filtered.text).not.toContain("mixed.case@example.com");
    // The filter is echoed escaped.
    const hostile = await t.get(`/dev/mailbox?to=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(hostile.status).toBe(200);
    expect(hostile.text).not.toContain("<script>");
    // Other methods: 405.
    expect((await t.post("/dev/mailbox.json")).status).toBe(405);
  });

  it("logs only the recipient and the subject", async () => {
    await t.post("/api/user/temp-signup", { json: { email: "logged@example.com" } });
    const code = await t.latestCode("logged@example.com");
    const logs = t.logger.lines.join("\n");
    expect(logs).toContain("logged@example.com");
    expect(logs).toContain("Your verification code");
    expect(logs).not.toContain(code);
  });

  it("stores the outbox in the database, so another instance on it sees the same mail", async () => {
    if (kind.name === "sqlite") return; // a second SQLite instance on the same file works too, but one is enough
    const other = await startApi(kind, { databaseUrl: t.config.databaseUrl, env: LOTS });
    try {
      await other.post("/api/user/temp-signup", { json: { email: "shared@example.com" } });
      expect((await t.mailbox("shared@example.com")).length).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe("emails", () => {
  const code = "012345";
  const withCode = [signupCodeEmail("a@example.com", code, {}, "en"), loginCodeEmail("a@example.com", code, "en"), resetCodeEmail("a@example.com", code, "en")];
  const withoutCode = [
    alreadyRegisteredEmail("a@example.com", "https://vpn.example.com", "en"),
    passwordChangedEmail("a@example.com", "https://vpn.example.com", "en"),
    passwordSetEmail("a@example.com", "https://vpn.example.com", "en"),
  ];

  it("carry the code as the only run of six digits in the text, and in the HTML", () => {
    for (const mail of withCode) {
      expect(mail.text.match(/\b\d{6}\b/g)).toEqual([code]);
      expect(mail.text.match(/\d{6}/g)).toEqual([code]);
      expect(mail.html).toContain(code);
      expect(mail.html).toMatch(/^<!doctype html>/);
    }
    expect(withCode.map((m) => m.subject)).toEqual(["Your verification code", "Your sign-in code", "Your password reset code"]);
  });

  it("without a code have no six-digit run, and link to PUBLIC_URL", () => {
    for (const mail of withoutCode) {
      expect(mail.text).not.toMatch(/\b\d{6}\b/);
      expect(mail.text).toContain("https://vpn.example.com/");
      expect(mail.html).toContain('href="https://vpn.example.com/');
    }
    expect(withoutCode.map((m) => m.subject)).toEqual([
      "You already have an account",
      "Your password was changed",
      "Your password was set",
    ]);
  });

  it("escape interpolated values in the HTML", () => {
    const mail = setPasswordLinkEmail("a@example.com", 'https://x.example/generate-password/a"b<c>&d', "en");
    expect(mail.html).toContain("https://x.example/generate-password/a&quot;b&lt;c&gt;&amp;d");
    expect(mail.html).not.toContain('a"b<c>');
    expect(mail.text).toContain('https://x.example/generate-password/a"b<c>&d');
  });
});

interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

/** A real SMTP server (smtp-server) on a random loopback port, collecting what it receives. */
async function startSmtpServer() {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received,
    async next(count: number): Promise<Received[]> {
      const deadline = Date.now() + 10_000;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error("no email arrived");
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The decoded body of the MIME part with this content type (quoted-printable or 7bit/8bit or base64). */
function mimePart(raw: string, contentType: string): string | undefined {
  const parts = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  for (const part of parts) {
    const [head = "", ...rest] = part.split(/\r?\n\r?\n/);
    if (!new RegExp(`Content-Type:\\s*${contentType.replace("/", "\\/")}`, "i").test(head)) continue;
    let content = rest.join("\n\n");
    if (/Content-Transfer-Encoding:\s*quoted-printable/i.test(head)) {
      content = content.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    } else if (/Content-Transfer-Encoding:\s*base64/i.test(head)) {
      content = Buffer.from(content.replace(/\s+/g, ""), "base64").toString("utf8");
    }
    return content;
  }
  return undefined;
}

describe("SMTP mail (SMTP_URL set)", () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it("SmtpMailer delivers subject, text and HTML parts to a real SMTP server", async () => {
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, "VPN Test <no-reply@vpn.test>");
    try {
      const before = smtp.received.length;
      await mailer.send(signupCodeEmail("someone@example.com", "654321", {}, "en"));
      const [mail] = (await smtp.next(before + 1)).slice(before);
      expect(mail!.from).toBe("no-reply@vpn.test");
      expect(mail!.to).toEqual(["someone@example.com"]);
      expect(mail!.raw).toMatch(/^Subject: Your verification code\r?$/m);
      expect(mail!.raw).toMatch(/^From: VPN Test <no-reply@vpn\.test>\r?$/m);
      expect(mail!.raw).toMatch(/multipart\/alternative/i);
      expect(mimePart(mail!.raw, "text/plain")).toContain("654321");
      expect(mimePart(mail!.raw, "text/html")).toContain("<strong>654321</strong>");
    } finally {
      await mailer.close();
    }
  });

  it("the API sends its emails by SMTP and has no /dev mailbox", async () => {
    const [sqlite] = databases();
    const t = await startApi(sqlite!, { env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: "VPN <mail@vpn.test>" } });
    try {
      expect(t.config.integrations.mail).toBe("live");
      const before = smtp.received.length;
      const res = await t.post("/api/user/temp-signup", { json: { email: "smtp-user@example.com" } });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe("Verification code sent to your email!");
      const [mail] = (await smtp.next(before + 1)).slice(before);
      expect(mail!.to).toEqual(["smtp-user@example.com"]);
      expect(mail!.from).toBe("mail@vpn.test");
      expect(mimePart(mail!.raw, "text/plain")!.match(/\b\d{6}\b/g)).toHaveLength(1);
      expect(mimePart(mail!.raw, "text/html")).toBeDefined();
      expect(t.logger.lines.join("\n")).toContain("smtp-user@example.com: Your verification code");

      // /dev paths are not the API's: they go to the next handler.
      const portal = express();
      portal.use(t.api.app);
      portal.use((req, res) => {
        res.status(200).type("text/plain").send(`portal ${req.path}`);
      });
      const server = await listen(portal);
      try {
        for (const path of ["/dev/mailbox", "/dev/mailbox.json"]) {
          const r = await request(`http://127.0.0.1:${server.port}`, "GET", path, { notTheApi: true });
          expect(r.text, path).toBe(`portal ${path}`);
        }
      } finally {
        await server.close();
      }
    } finally {
      await t.close();
    }
  });

  it("an unreachable SMTP server is logged, and the code request says it could not send (tests/api/faults-mail.test.ts has more)", async () => {
    const [sqlite] = databases();
    // Nothing listens on port 9 of loopback (discard); the connection is refused.
    const t = await startApi(sqlite!, { env: { SMTP_URL: "smtp://127.0.0.1:9" } });
    try {
      // The demo account exists in sandbox mode (SMTP live beside the other stand-ins).
      const res = await t.post("/api/auth/forgot-password", { json: { email: "demo@example.com" } });
      expect(res.status).toBe(502);
      expect(res.body.message).toBe("Failed to send reset password email");
    } finally {
      await t.close();
    }
    expect(t.logger.lines.join("\n")).toMatch(/The mail server is unavailable/);
  });
});
