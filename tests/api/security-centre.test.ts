import { describe, expect, it } from "vitest";
import { currentCode } from "../../api/identity/two-factor";
import { databases, useApi } from "./harness";

// Issue 22 (docs/decisions/035): the events recorded at sign-in and elsewhere, the new sign-in alert,
// the security emails, the events endpoint and the 90-day retention.

const PASSWORD = "password-123";
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const NEW_SIGN_IN = "New sign-in to your account";

function browser(key: string, ip = "203.0.113.77") {
  return { "X-Device-Key": key.padEnd(43, "k"), "User-Agent": CHROME, "X-Forwarded-For": ip };
}

describe.each(databases())("security centre ($name)", (kind) => {
  const t = useApi(kind, { env: { LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "50", LOGIN_MAX_FAILURES_PER_IP: "200" } });
  let n = 0;

  async function account() {
    const email = `sc-${kind.name}-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const userId = await t.createUser({ email, password: PASSWORD });
    return { email, userId };
  }

  async function events(token: string, page?: number) {
    const res = await t.get(`/api/account/security-events${page ? `?page=${page}` : ""}`, { token });
    expect(res.status).toBe(200);
    return res.body.data as { events: { kind: string; label: string; network: string | null; browser: string | null; user_agent: string | null; detail: string | null }[]; has_more: boolean; page: number };
  }

  const alerts = async (email: string) => (await t.mailbox(email)).filter((mail) => mail.subject.startsWith(NEW_SIGN_IN));

  it("records 'Signed in' with the browser and the shortened network, and 'Sign-in failed' only for an existing account", async () => {
    const { email, userId } = await account();
    const wrong = await t.post("/api/user/login", { json: { email, password: "wrong-password" }, headers: browser("a") });
    expect(wrong.status).toBe(401);
    const token = await t.login(email, PASSWORD, browser("a"));
    const page = await events(token);
    expect(page.events.map((e) => e.label)).toEqual(["Signed in", "Sign-in failed"]);
    expect(page.events[0]).toMatchObject({ kind: "signed_in", network: "203.0.113.0/24", browser: "Chrome 131 on Windows 10" });
    const stored = await t.db.selectFrom("security_events").selectAll().where("user_id", "=", userId).execute();
    expect(JSON.stringify(stored)).not.toContain("203.0.113.77");

    // An unknown email leaves no trace anywhere (no enumeration), and answers like a wrong password.
    const before = await t.db.selectFrom("security_events").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    const unknown = await t.post("/api/user/login", { json: { email: `nobody-${n}@example.com`, password: "wrong-password" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toBe(wrong.body.message);
    const after = await t.db.selectFrom("security_events").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it("records sign-ins by emailed code and by SSO token, and 'Signed out everywhere'", async () => {
    const { email } = await account();
    const first = await t.login(email, PASSWORD, browser("b"));
    await t.post("/api/auth/get-login-code", { json: { email } });
    const code = await t.latestCode(email);
    const byCode = await t.post("/api/auth/code-login", { json: { email, code }, headers: browser("b") });
    expect(byCode.status).toBe(200);
    const sso = await t.post("/api/auth/sso-token", { token: first });
    const bySso = await t.post("/api/auth/sso-login-with-token", { json: { access_token: sso.body.data.access_token }, headers: browser("b") });
    expect(bySso.status).toBe(200);
    const out = await t.post("/api/devices/terminate-all", { token: bySso.body.data.token, json: {} });
    expect(out.status).toBe(200);
    const token = await t.login(email, PASSWORD, browser("b"));
    expect((await events(token)).events.map((e) => e.kind)).toEqual(["signed_in", "signed_out_everywhere", "signed_in", "signed_in", "signed_in"]);
  });

  it("emails a new sign-in once per new browser, even under a parallel burst, and not for the first one", async () => {
    const { email } = await account();
    await t.login(email, PASSWORD, browser("home"));
    await t.login(email, PASSWORD, browser("home"));
    expect(await alerts(email)).toHaveLength(0);

    const burst = await Promise.all(
      Array.from({ length: 6 }, () => t.post("/api/user/login", { json: { email, password: PASSWORD }, headers: browser("stranger", "198.51.100.20") })),
    );
    expect(burst.every((res) => res.status === 200)).toBe(true);
    const sent = await alerts(email);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toContain("198.51.100.0/24");
    expect(sent[0]!.text).toContain("Chrome 131 on Windows 10");
    expect(sent[0]!.text).not.toContain("198.51.100.20");
    expect(sent[0]!.text).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]+&email=/);

    // The same browser again: no second email.
    await t.login(email, PASSWORD, browser("stranger", "198.51.100.20"));
    expect(await alerts(email)).toHaveLength(1);
  });

  it("an app that sends no device id is known by the device it describes: one alert per device, never one per sign-in (issue 33)", async () => {
    const { email } = await account();
    await t.login(email, PASSWORD, browser("first"));
    const app = (model: string, ip: string) => ({
      json: { email, password: PASSWORD, platform: "Desktop", device_os: "Windows", device_os_version: "11", device_brand: "Dell", device_model: model },
      headers: { "User-Agent": "VPN-Desktop/5.2.0", "X-Forwarded-For": ip },
    });
    // A burst of sign-ins from one app, then more from other networks (a VPN app changes address with every server).
    const burst = await Promise.all(Array.from({ length: 4 }, () => t.post("/api/user/login", app("XPS 13", "198.51.100.20"))));
    expect(burst.every((res) => res.status === 200)).toBe(true);
    for (const ip of ["203.0.113.9", "192.0.2.44"]) expect((await t.post("/api/user/login", app("XPS 13", ip))).status).toBe(200);
    expect(await alerts(email)).toHaveLength(1);
    // Another device is another alert.
    expect((await t.post("/api/user/login", app("Latitude 7440", "198.51.100.20"))).status).toBe(200);
    expect(await alerts(email)).toHaveLength(2);
    const known = await t.db.selectFrom("known_sign_in_devices").select("known_sign_in_devices.id").innerJoin("users", "users.id", "known_sign_in_devices.user_id").where("users.email", "=", email).execute();
    expect(known).toHaveLength(3);
  });

  it("the alert's link resets the password and signs out every session", async () => {
    const { email } = await account();
    const home = await t.login(email, PASSWORD, browser("home2"));
    await t.login(email, PASSWORD, browser("thief"));
    const [mail] = await alerts(email);
    const link = new URL(/(http\S+\/reset-password\?\S+)/.exec(mail!.text)![1]!);
    const reset = await t.post("/api/auth/reset-password", {
      json: { token: link.searchParams.get("token"), email: link.searchParams.get("email"), password: "new-password-1", password_confirmation: "new-password-1" },
    });
    expect(reset.status).toBe(200);
    expect((await t.get("/api/me", { token: home })).status).toBe(401);
    const again = await t.login(email, "new-password-1", browser("home2"));
    expect((await events(again)).events.map((e) => e.kind)).toContain("password_changed");
  });

  it("sends no alert when the account turned them off, and the setting reads back", async () => {
    const { email } = await account();
    const token = await t.login(email, PASSWORD, browser("c"));
    expect((await t.get("/api/account/sign-in-alerts", { token })).body.data).toEqual({ enabled: true });
    const off = await t.request("PUT", "/api/account/sign-in-alerts", { token, json: { enabled: 0 } });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ enabled: false });
    await t.login(email, PASSWORD, browser("d"));
    expect(await alerts(email)).toHaveLength(0);
    await t.request("PUT", "/api/account/sign-in-alerts", { token, json: { enabled: 1 } });
    await t.login(email, PASSWORD, browser("e"));
    expect(await alerts(email)).toHaveLength(1);
  });

  it("emails and records two-factor on, a recovery code used at sign-in, five wrong codes in a row, and two-factor off", async () => {
    const { email } = await account();
    const token = await t.login(email, PASSWORD, browser("f"));
    const setup = await t.post("/api/account/two-factor/setup", { token });
    const secret: string = setup.body.data.secret;
    const enable = await t.post("/api/account/two-factor/enable", { token, json: { code: currentCode(secret), password: PASSWORD }, headers: browser("f") });
    expect(enable.status).toBe(200);
    const recovery: string[] = enable.body.data.recovery_codes;
    expect((await t.mailbox(email)).map((m) => m.subject)).toContain("Two-factor authentication was turned on");

    const challenge = async () => (await t.post("/api/user/login", { json: { email, password: PASSWORD }, headers: browser("f") })).body.data.challenge as string;
    const wrong = currentCode(secret) === "000000" ? "111111" : "000000";
    let c = await challenge();
    for (let i = 0; i < 5; i++) {
      if (i === 4) c = await challenge();
      await t.post("/api/user/two-factor/verify", { json: { challenge: c, code: wrong }, headers: browser("f") });
    }
    expect((await t.mailbox(email)).filter((m) => m.subject === "Failed two-factor sign-in attempts on your account")).toHaveLength(1);

    const verified = await t.post("/api/user/two-factor/verify", { json: { challenge: await challenge(), recovery_code: recovery[0] }, headers: browser("f") });
    expect(verified.status).toBe(200);
    expect((await t.mailbox(email)).map((m) => m.subject)).toContain("Two-factor recovery used on your account");

    const off = await t.post("/api/account/two-factor/disable", { token, json: { recovery_code: recovery[1] }, headers: browser("f") });
    expect(off.status).toBe(200);
    expect((await t.mailbox(email)).map((m) => m.subject)).toContain("Two-factor authentication was turned off");
    const kinds = (await events(token)).events.map((e) => e.kind);
    expect(kinds.slice(0, 4)).toEqual(["two_factor_disabled", "recovery_code_used", "signed_in", "recovery_code_used"]);
    expect(kinds).toContain("two_factor_enabled");
  });

  it("lists only the caller's events, 20 a page, and refuses without a token or with a bad page", async () => {
    const { email, userId } = await account();
    const other = await account();
    const token = await t.login(email, PASSWORD, browser("g"));
    await t.login(other.email, PASSWORD, browser("g"));
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < 24; i++) {
      await t.db
        .insertInto("security_events")
        .values({ user_id: userId, kind: "card_added", created_at: new Date(base + i * 1000).toISOString(), user_agent: null, network: null, detail: `Visa ending ${1000 + i}` })
        .execute();
    }
    const first = await events(token);
    expect(first.events).toHaveLength(20);
    expect(first.has_more).toBe(true);
    const second = await events(token, 2);
    expect(second.events).toHaveLength(5);
    expect(second.has_more).toBe(false);
    expect([...first.events, ...second.events].filter((e) => e.kind === "signed_in")).toHaveLength(1);
    expect((await t.get("/api/account/security-events")).status).toBe(401);
    expect((await t.get("/api/account/security-events?page=0", { token })).status).toBe(422);
    expect((await t.get("/api/account/security-events?page=abc", { token })).status).toBe(422);
  });

  it("the scheduled jobs delete events older than 90 days", async () => {
    const { email, userId } = await account();
    const token = await t.login(email, PASSWORD, browser("h"));
    await t.db
      .insertInto("security_events")
      .values({ user_id: userId, kind: "password_changed", created_at: new Date(Date.now() - 91 * 86_400_000).toISOString(), user_agent: null, network: null, detail: null })
      .execute();
    expect((await events(token)).events).toHaveLength(2);
    await t.api.runDueJobs();
    expect((await events(token)).events.map((e) => e.kind)).toEqual(["signed_in"]);
  });
});
