import { afterAll, describe, expect, it } from "vitest";
import { hasControlCharacters } from "../../api/platform/text";
import { databases, useApi } from "./harness";
import { startOidcStub } from "./oidc-stub";

/*
 * Free text that reaches an email or a page (review issue 30, docs/decisions/043): every route that takes
 * some refuses control and bidirectional characters with 422 and a message under the field, so nothing
 * like 'Laptop\r\nBcc: …' or 'Lap\u202Epot' reaches an email or a page. Text from someone who cannot be
 * asked to correct it (a provider's display name, a browser's User-Agent) is cleaned instead.
 */

const stub = await startOidcStub();
afterAll(() => stub.close());

/** What an attacker would type: a header injection, a right-to-left override, NUL, an isolate, a C1 control, LRM. */
const BAD = ["Laptop\r\nBcc: victim@example.com", "Lap\u202Etop.exe", "a\u0000b", "x\u2066y", "next\u0085line", "mark\u200Eed"];

/** A well-formed passkey registration answer: the name is checked before anything is verified. */
const REGISTRATION = {
  id: "AAAA",
  rawId: "AAAA",
  type: "public-key",
  clientExtensionResults: {},
  response: { clientDataJSON: "AAAA", attestationObject: "AAAA" },
};

describe.each(databases())("free text ($name)", (kind) => {
  const t = useApi(kind, { env: { ...stub.env, SUPPORT_EMAIL: "help-desk@example.com" } });
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${kind.name}-${++n}`;

  async function account() {
    const email = `${unique("free-text")}@example.com`;
    const userId = await t.createUser({ email, password: "correct-horse-1" });
    return { email, userId, token: await t.login(email, "correct-horse-1") };
  }

  it("refuses control and direction characters in every free-text field (422, the message under the field)", async () => {
    const { email, token } = await account();
    const routes: Array<{ method: string; path: string; body: (bad: string) => Record<string, unknown>; field: string; message: string; token?: string; multiline?: true }> = [
      {
        method: "POST",
        path: "/api/account/passkeys",
        body: (bad) => ({ challenge_id: "challenge", name: bad, response: REGISTRATION }),
        field: "name",
        message: "Remove the control characters from the passkey name.",
        token,
      },
      {
        method: "POST",
        path: "/api/support/messages",
        body: (bad) => ({ email: "visitor@example.com", message: `Hello,\n${bad}` }),
        field: "message",
        message: "Remove the control characters from your message.",
        // Its line breaks are the customer's: every other character of BAD is refused.
        multiline: true,
      },
      {
        method: "POST",
        path: "/api/user/login",
        body: (bad) => ({ email, password: "correct-horse-1", platform: "Desktop", device_model: bad }),
        field: "device_model",
        message: "Remove the control characters from the device model.",
      },
      {
        method: "POST",
        path: "/api/auth/code-login",
        body: (bad) => ({ email, code: "123456", device_brand: bad }),
        field: "device_brand",
        message: "Remove the control characters from the device brand.",
      },
      {
        method: "POST",
        path: "/api/coupons/apply",
        body: (bad) => ({ code: bad, planId: 1 }),
        field: "code",
        message: "Remove the control characters from the coupon code.",
      },
      {
        method: "POST",
        path: "/api/add-new-card",
        body: (bad) => ({ payment_method_id: "pm_card_visa", billing_name: bad }),
        field: "billing_name",
        message: "Remove the control characters from the billing name.",
        token,
      },
      {
        method: "PUT",
        path: "/api/payment-methods/1/update-card-details",
        body: (bad) => ({ card_exp_month: 12, card_exp_year: 2040, billing_name: bad }),
        field: "billing_name",
        message: "Remove the control characters from the billing name.",
        token,
      },
      {
        method: "POST",
        path: "/api/payments/crypto/invoice",
        body: (bad) => ({ planId: 1, amount: "9.99", currency: "USD", email, coupon: bad }),
        field: "coupon",
        message: "Remove the control characters from the coupon.",
        token,
      },
    ];
    for (const route of routes) {
      for (const bad of route.multiline ? BAD.filter((text) => !text.includes("\r\n")) : BAD) {
        const res = await t.request(route.method, route.path, { json: route.body(bad), token: route.token, headers: { "x-forwarded-for": "192.0.2.30" } });
        const what = `${route.method} ${route.path} ${JSON.stringify(bad)}`;
        expect(res.status, what).toBe(422);
        expect(res.body.errors.code, what).toBe("validation_failed");
        expect(res.body.errors.fields, what).toEqual({ [route.field]: [route.message] });
      }
    }
    // Nothing was sent: no passkey email, no message to support.
    expect(await t.mailbox(email)).toEqual([]);
    expect(await t.mailbox("help-desk@example.com")).toEqual([]);
    expect(await t.db.selectFrom("passkeys").select("id").execute()).toEqual([]);
  });

  it("takes what the rule allows: accents, right-to-left letters, emoji, blanks around a name", async () => {
    const { email } = await account();
    const res = await t.post("/api/user/login", {
      json: { email, password: "correct-horse-1", platform: "Desktop", device_model: "  Zoë’s ThinkPad — שלום 👩‍💻  " },
    });
    expect(res.status).toBe(200);
    const device = await t.db.selectFrom("devices").select("device_model").orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(device.device_model).toBe("Zoë’s ThinkPad — שלום 👩‍💻");
  });

  it("cleans a Google name it cannot refuse, from the body or the ID token, before it is stored", async () => {
    const fromBody = `${unique("named")}@example.com`;
    const res = await t.post("/api/user/thirdparty-login", {
      json: { name: "Ann\r\nBcc: victim@example.com\u202E", email: fromBody, firebase_id_token: await stub.sign("google", { sub: unique("g"), email: fromBody }), auth_method: "GOOGLE" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.user.name).toBe("Ann Bcc: victim@example.com");

    const fromToken = `${unique("named")}@example.com`;
    const token = await stub.sign("google", { sub: unique("g"), email: fromToken, name: "\u2067Lee\u2069\tSmith\u0000" });
    const again = await t.post("/api/user/thirdparty-login", { json: { email: fromToken, firebase_id_token: token, auth_method: "GOOGLE" } });
    expect(again.status).toBe(200);
    expect(again.body.data.user.name).toBe("Lee Smith");
    const stored = await t.db.selectFrom("users").select("name").where("email", "=", fromToken).executeTakeFirstOrThrow();
    expect(stored.name).toBe("Lee Smith");
  });

  it("stores a User-Agent without its control characters (the devices and security pages show it)", async () => {
    const { email, userId } = await account();
    // HTTP lets a header carry bytes 0x80–0xFF and tabs: read as Latin-1, they are C1 controls.
    const userAgent = "Mozilla/5.0 (X11; Linux x86_64)\u0085\u009b31m\tChrome/131.0 Safari/537.36";
    await t.login(email, "correct-horse-1", { "user-agent": userAgent });
    const device = await t.db.selectFrom("devices").select("user_agent").where("user_id", "=", userId).orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(device.user_agent).toBe("Mozilla/5.0 (X11; Linux x86_64) 31m Chrome/131.0 Safari/537.36");
    const events = await t.db.selectFrom("security_events").select("user_agent").where("user_id", "=", userId).execute();
    expect(events.map((event) => event.user_agent)).toContain("Mozilla/5.0 (X11; Linux x86_64) 31m Chrome/131.0 Safari/537.36");
    for (const event of events) expect(hasControlCharacters(event.user_agent ?? "")).toBe(false);
  });
});
