import { describe, expect, it } from "vitest";
import { loadApiConfig } from "../../api/platform/config";
import { LIVE_ESSENTIALS, type TestResponse, databases, useApi } from "./harness";

// The help page's contact form (issue 21): POST /api/support/messages emails support (SUPPORT_EMAIL,
// Reply-To the sender), a copy only to a signed-in account's own address (review issue 30: never anyone's
// text to an address that has proved nothing), refuses bad input field by field, and holds its limits
// under a parallel burst.

const SUPPORT = "help-desk@example.com";
const SENT = "Your message has been sent. We have emailed you a copy and will reply to that address.";
const SENT_WITHOUT_COPY = "Your message has been sent. We will reply to the email address you gave.";

function tally(responses: TestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

describe.each(databases())("support messages ($name)", (kind) => {
  const t = useApi(kind, { env: { SUPPORT_EMAIL: SUPPORT, SUPPORT_MAX_PER_EMAIL_PER_HOUR: "3", SUPPORT_MAX_PER_IP_PER_HOUR: "10" } });
  let n = 0;
  const sender = () => `sender-${kind.name}-${++n}@example.com`;
  /** Each test its own client address, so that the per-address limit of one never reaches another. */
  const from = (ip: string) => ({ "x-forwarded-for": ip });
  const send = (body: Record<string, unknown>, ip: string, token?: string) =>
    t.post("/api/support/messages", { json: body, headers: from(ip), token });

  it("sends a visitor's message to support with Reply-To the sender, and nothing to the address typed", async () => {
    const email = sender();
    const message = "My app says 'Connecting…' forever.\nI tried twice: <b>no luck</b> & no error.\n\tStep 1: open it.";
    const res = await send({ email: `  ${email.toUpperCase()} `, message: `\r\n${message.replace("\n", "\r\n")} ` }, "192.0.2.1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: SENT_WITHOUT_COPY, data: { sent: true, copied: false } });

    const toSupport = (await t.mailbox(SUPPORT)).find((mail) => mail.text.includes(email));
    expect(toSupport).toMatchObject({ subject: `Support request from ${email}`, replyTo: email });
    // Its lines and tabs are kept.
    expect(toSupport!.text).toContain(message);
    expect(toSupport!.text).toContain("Not signed in");
    // The address typed has proved nothing: no copy of the text (or anything else) goes to it.
    expect(await t.mailbox(email)).toEqual([]);

    // The HTML body escapes what the sender typed and keeps its line breaks.
    const stored = await t.db.selectFrom("mail_outbox").select(["html", "reply_to"]).where("to_address", "=", SUPPORT).orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(stored.reply_to).toBe(email);
    expect(stored.html).toContain("I tried twice: &lt;b&gt;no luck&lt;/b&gt; &amp; no error.");
    expect(stored.html).toContain("forever.<br>I tried twice");
    expect(stored.html).not.toContain("<b>no luck</b>");
    expect(stored.html).not.toContain("\u0000");
  });

  it("names the signed-in account to support, titles a refund request as one, and copies only the account's own address", async () => {
    const account = sender();
    await t.createUser({ email: account, password: "right-password-1" });
    const token = await t.login(account, "right-password-1", from("192.0.2.2"));
    const replyTo = sender();
    const res = await send({ email: replyTo, message: "Please refund invoice 1234.", topic: "refund" }, "192.0.2.2", token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: SENT_WITHOUT_COPY, data: { sent: true, copied: false } });
    const mail = (await t.mailbox(SUPPORT)).find((m) => m.text.includes(replyTo));
    expect(mail).toMatchObject({ subject: `Refund request from ${replyTo}`, replyTo });
    expect(mail!.text).toMatch(/Signed in as account \d+ \(/);
    expect(mail!.text).toContain(account);
    // Another address typed while signed in has proved nothing either.
    expect(await t.mailbox(replyTo)).toEqual([]);

    // The account's own address (any case) gets the copy with the text.
    const own = await send({ email: account.toUpperCase(), message: "Where is my invoice?\nThanks." }, "192.0.2.2", token);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ message: SENT, data: { sent: true, copied: true } });
    const [copy] = await t.mailbox(account);
    expect(copy).toMatchObject({ to: account, subject: "We have your message" });
    expect(copy!.text).toContain("Where is my invoice?\nThanks.");
    expect(copy!.replyTo).toBeUndefined();
  });

  it("refuses a missing or bad email, a blank or too long message, control or direction characters in it, an unknown topic, and a line break in the email (422, nothing sent)", async () => {
    const before = (await t.mailbox(SUPPORT)).length;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ message: "Hello" }, "email", "Please enter your email address."],
      [{ email: "not-an-email", message: "Hello" }, "email", "Please enter a valid email address"],
      [{ email: "a@example.com\r\nBcc: victim@example.com", message: "Hello" }, "email", "Please enter a valid email address"],
      [{ email: sender(), message: "   \n  " }, "message", "Please write your message."],
      [{ email: sender() }, "message", "Please write your message."],
      [{ email: sender(), message: "x".repeat(5001) }, "message", "Your message is too long: at most 5000 characters."],
      [{ email: sender(), message: "Hello\u0000" }, "message", "Remove the control characters from your message."],
      [{ email: sender(), message: "Invoice \u202Efdp.exe" }, "message", "Remove the control characters from your message."],
      [{ email: sender(), message: "Escape \u001b[31m red" }, "message", "Remove the control characters from your message."],
      [{ email: sender(), message: "Hello", topic: "sales" }, "topic", "The topic must be one of: question, refund."],
    ];
    for (const [body, field, message] of cases) {
      const res = await send(body, "192.0.2.3");
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.errors.code).toBe("validation_failed");
      expect(res.body.errors.fields[field]).toEqual([message]);
    }
    // A message of exactly the limit goes through.
    expect((await send({ email: sender(), message: "y".repeat(5000) }, "192.0.2.3")).status).toBe(200);
    expect((await t.mailbox(SUPPORT)).length).toBe(before + 1);
  });

  it("takes form posts too (the portal's no-JavaScript path goes through it)", async () => {
    const email = sender();
    const res = await t.post("/api/support/messages", { form: { email, message: "From a form.", topic: "" }, headers: from("192.0.2.4") });
    expect(res.status).toBe(200);
    expect((await t.mailbox(SUPPORT)).some((mail) => mail.replyTo === email && mail.subject.startsWith("Support request"))).toBe(true);
  });

  it("holds the per-address limit under a parallel burst from one sender (3), then answers 429 with Retry-After", async () => {
    const email = sender();
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => send({ email, message: `Burst ${i}` }, "192.0.2.5")));
    expect(tally(burst)).toEqual({ 200: 3, 429: 9 });
    const refused = burst.find((res) => res.status === 429)!;
    expect(refused.body.message).toBe("Too many messages were sent. Please try again in 60 minutes.");
    expect(refused.body.errors.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500);
    // Exactly three messages went out (and no copy: no one is signed in).
    expect(await t.mailbox(email)).toHaveLength(0);
    expect((await t.mailbox(SUPPORT)).filter((mail) => mail.replyTo === email)).toHaveLength(3);
    // Another address at another client is not held back by it.
    expect((await send({ email: sender(), message: "Unrelated" }, "192.0.2.6")).status).toBe(200);
  });

  it("holds the per-client-address limit under a parallel burst of many senders (10)", async () => {
    const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => send({ email: sender(), message: `Address burst ${i}` }, "192.0.2.7")));
    expect(tally(burst)).toEqual({ 200: 10, 429: 15 });
    // A refused request counts nothing: the address's window holds exactly its limit.
    const count = await t.db.selectFrom("rate_limits").select("count").where("key", "=", "support:ip:192.0.2.7").executeTakeFirstOrThrow();
    expect(Number(count.count)).toBe(10);
  });
});

describe.each(databases())("support messages outside sandbox mode without SUPPORT_EMAIL ($name)", (kind) => {
  const t = useApi(kind, { env: { ...LIVE_ESSENTIALS, SANDBOX: "" } });

  it("has the form off (404, 'The contact form is unavailable.'), with no stand-in address", async () => {
    expect(t.config.support.email).toBeNull();
    const res = await t.post("/api/support/messages", { json: { email: "someone@example.com", message: "Hello" } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("The contact form is unavailable.");
  });
});

describe("SUPPORT_EMAIL in the configuration", () => {
  it("defaults to the sandbox's address in sandbox mode only, and is checked at boot", () => {
    expect(loadApiConfig({ SANDBOX: "true" }).support.email).toBe("support@example.com");
    expect(loadApiConfig({ SANDBOX: "true", SUPPORT_EMAIL: SUPPORT }).support.email).toBe(SUPPORT);
    expect(loadApiConfig({ ...LIVE_ESSENTIALS, SUPPORT_EMAIL: SUPPORT }).support.email).toBe(SUPPORT);
    expect(() => loadApiConfig({ SANDBOX: "true", SUPPORT_EMAIL: "Support <help@example.com>" })).toThrow(
      "SUPPORT_EMAIL: expected an email address such as support@example.com",
    );
    expect(() => loadApiConfig({ SANDBOX: "true", SUPPORT_EMAIL: "help@example.com\nBcc: x@example.com" })).toThrow(/SUPPORT_EMAIL/);
  });
});
