import { describe, expect, it } from "vitest";
import { databases, useApi } from "./harness";
import { uniqueEmail } from "../support/emails";
import { pdfText } from "../support/pdf-text";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";
import { insertSubscription } from "../support/accounts";
import { generateKeyPairSync } from "node:crypto";
import { recordSecurityEvent } from "../../api/identity/security-events";

// The account's language and the answers' language (issue 36, docs/decisions/064).

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };
const PASSWORD = "correct-horse-battery";

describe.each(databases({ postgres: "users.language: migration 0028's column, its default and its update" }))(
  "the account's language ($name)",
  (kind) => {
    const t = useApi(kind, { env: LOTS });

    it("is none (null: emails in English) until chosen, is set by PUT /api/account/language and shows in /api/me and the data export", async () => {
      const email = uniqueEmail("lang");
      await t.createUser({ email, password: PASSWORD });
      const token = await t.login(email, PASSWORD);
      expect((await t.get("/api/me", { token })).body.data.language).toBeNull();

      const put = await t.request("PUT", "/api/account/language", { token, json: { language: "de" } });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ status: true, success: true, message: "Your language was saved.", data: { language: "de" } });
      expect((await t.get("/api/me", { token })).body.data.language).toBe("de");
      const row = await t.db.selectFrom("users").select("language").where("email", "=", email).executeTakeFirstOrThrow();
      expect(row.language).toBe("de");

      const french = await t.request("PUT", "/api/account/language", { token, json: { language: "fr" } });
      expect(french.body.data).toEqual({ language: "fr" });
      // The sign-in answers carry it too.
      const login = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
      expect(login.body.data.user.language).toBe("fr");

      const exported = await t.get("/api/account/export", { token });
      expect(exported.status).toBe(200);
      expect(exported.body.data.account.language).toBe("fr");
    });

    it("refuses another language with 422 and a field message, and an unsigned request with 401", async () => {
      const email = uniqueEmail("lang-bad");
      await t.createUser({ email, password: PASSWORD });
      const token = await t.login(email, PASSWORD);
      for (const language of ["it", "de-DE", "DE", " de", "", 7]) {
        const res = await t.request("PUT", "/api/account/language", { token, json: { language } });
        expect(res.status, String(language)).toBe(422);
        expect(res.body.errors).toEqual({
          message: "The language must be one of en, de, fr, es.",
          code: "validation_failed",
          fields: { language: ["The language must be one of en, de, fr, es."] },
        });
      }
      const missing = await t.request("PUT", "/api/account/language", { token, json: {} });
      expect(missing.status).toBe(422);
      expect(missing.body.errors.fields).toEqual({ language: ["The language field is required."] });
      // In German for a German request.
      const german = await t.request("PUT", "/api/account/language", { token, json: { language: "it" }, headers: { "accept-language": "de" } });
      expect(german.body.errors.fields.language).toEqual(["Die Sprache muss en, de, fr oder es sein."]);

      const unsigned = await t.request("PUT", "/api/account/language", { json: { language: "de" } });
      expect(unsigned.status).toBe(401);
      expect((await t.get("/api/me", { token })).body.data.language).toBeNull();
    });

    it("stores the language a visitor signed up in", async () => {
      const email = uniqueEmail("lang-signup");
      expect((await t.post("/api/user/temp-signup", { json: { email }, headers: { "accept-language": "de-DE,de;q=0.9" } })).status).toBe(200);
      const [mail] = await t.mailbox(email);
      // The sign-up code email (no account yet) is in the request's language.
      expect(mail!.subject).toBe("Ihr Bestätigungscode");
      const code = await t.latestCode(email);
      const res = await t.post("/api/user/register-user", {
        json: {
          email,
          password: "new-password-1",
          password_confirmation: "new-password-1",
          verification_code: code,
          agreement: 1,
          newsletter: 0,
          language: "de",
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.user.language).toBe("de");
      const row = await t.db.selectFrom("users").select("language").where("email", "=", email).executeTakeFirstOrThrow();
      expect(row.language).toBe("de");
    });

    it("gives an account signed up without a language none (its emails English)", async () => {
      const email = uniqueEmail("lang-signup-en");
      await t.post("/api/user/temp-signup", { json: { email } });
      const code = await t.latestCode(email);
      const res = await t.post("/api/user/signup", {
        json: { email, password: "new-password-1", password_confirmation: "new-password-1", verification_code: code, agreement: 1, newsletter: 0 },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.user.language).toBeNull();
    });
  },
);

describe.each(databases())("answers in the request's language ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });
  const EN_WRONG_PASSWORD =
    '{"status":false,"success":false,"message":"These credentials do not match our records.","errors":{"message":"These credentials do not match our records.","code":"invalid_credentials"}}';

  const wrongPassword = async (headers?: Record<string, string>) => {
    const email = uniqueEmail("lang-login");
    await t.createUser({ email, password: PASSWORD, language: "es" });
    return t.post("/api/user/login", { json: { email, password: "wrong-password" }, headers });
  };

  it("writes an error in German for Accept-Language: de, whatever the account's language", async () => {
    const res = await wrongPassword({ "accept-language": "de" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      status: false,
      success: false,
      message: "Diese Anmeldedaten stimmen nicht mit unseren Unterlagen überein.",
      errors: { message: "Diese Anmeldedaten stimmen nicht mit unseren Unterlagen überein.", code: "invalid_credentials" },
    });
  });

  it("reads a browser's header: quality values and regions (fr-CH,fr;q=0.9 is French)", async () => {
    const res = await wrongPassword({ "accept-language": "fr-CH,fr;q=0.9,en;q=0.8" });
    expect(res.body.errors.message).toBe("Ces identifiants ne correspondent à aucun compte.");
    const preferred = await wrongPassword({ "accept-language": "it-IT,it;q=0.9,es;q=0.5,de;q=0.4" });
    expect(preferred.body.message).toBe("Estas credenciales no coinciden con nuestros registros.");
    const refused = await wrongPassword({ "accept-language": "de;q=0, ja" });
    expect(refused.body.message).toBe("These credentials do not match our records.");
  });

  it("answers English byte for byte without the header, and for a language it does not have", async () => {
    expect((await wrongPassword()).text).toBe(EN_WRONG_PASSWORD);
    expect((await wrongPassword({ "accept-language": "en" })).text).toBe(EN_WRONG_PASSWORD);
    expect((await wrongPassword({ "accept-language": "pt-BR,pt;q=0.9" })).text).toBe(EN_WRONG_PASSWORD);
  });

  it("writes field messages, labels and counted waits in the language", async () => {
    const fields = await t.post("/api/user/login", { json: { email: "not-an-email" }, headers: { "accept-language": "de-DE" } });
    expect(fields.status).toBe(422);
    expect(fields.body.errors.fields).toEqual({
      email: ["Bitte geben Sie eine gültige E-Mail-Adresse ein"],
      password: ["Das Feld „Passwort“ ist erforderlich."],
    });
    expect(fields.body.message).toBe("Bitte geben Sie eine gültige E-Mail-Adresse ein");

    const email = uniqueEmail("lang-wait");
    expect((await t.post("/api/user/temp-signup", { json: { email } })).status).toBe(200);
    const again = await t.post("/api/user/temp-signup", { json: { email }, headers: { "accept-language": "fr" } });
    expect(again.status).toBe(429);
    expect(again.body.message).toMatch(/^Veuillez patienter \d+ secondes? avant de demander un nouveau code\.$/);
    const english = await t.post("/api/user/temp-signup", { json: { email } });
    expect(english.body.message).toMatch(/^Please wait \d+ seconds before requesting a new code\.$/);

    const coupon = await t.post("/api/coupons/apply", { json: { planId: 5, code: "NOPE" }, headers: { "accept-language": "es" } });
    expect(coupon.body.errors.message).toBe("Este código de cupón no es válido.");
    const success = await t.post("/api/user/temp-signup", { json: { email: uniqueEmail("lang-ok") }, headers: { "accept-language": "es" } });
    expect(success.body.message).toBe("¡Te hemos enviado el código de verificación por correo electrónico!");
  });
});

describe.each(databases())("the account areas' messages in the request's language ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });
  const DE = { "accept-language": "de-DE,de;q=0.9" };

  /** A new account (with a year's plan unless `plan: false`), signed in. */
  const signedIn = async (name: string, opts: { plan?: boolean } = {}) => {
    const email = uniqueEmail(name);
    const userId = await t.createUser({ email, password: PASSWORD, language: "fr" });
    if (opts.plan !== false) await insertSubscription(t.db, userId, { now: t.clock.now(), days: 365 });
    return t.login(email, PASSWORD);
  };
  const publicKey = () => {
    const { publicKey: key } = generateKeyPairSync("x25519");
    return Buffer.from(key.export({ format: "jwk" }).x!, "base64url").toString("base64");
  };
  const configuration = (token: string, headers?: Record<string, string>) =>
    t.post("/api/vpn/configurations", { token, json: { name: "Router", server: "fastest", public_key: publicKey() }, headers });

  it("refuses a WireGuard configuration beyond the limit, and one without a plan, in German; English as before without the header", async () => {
    const token = await signedIn("lang-vpn");
    for (let i = 0; i < 10; i++) expect((await configuration(token)).status).toBe(200);
    const german = await configuration(token, DE);
    expect(german.status).toBe(422);
    expect(german.body.errors).toEqual({ message: "Sie haben 10 Konfigurationen. Widerrufen Sie eine, um eine weitere zu erstellen.", code: "configuration_limit" });
    const english = await configuration(token);
    expect(english.text).toBe(
      '{"status":false,"success":false,"message":"You have 10 configurations. Revoke one to create another.","errors":{"message":"You have 10 configurations. Revoke one to create another.","code":"configuration_limit"}}',
    );
    const free = await signedIn("lang-vpn-free", { plan: false });
    expect((await configuration(free, { "accept-language": "es" })).body.message).toBe("Necesitas un plan para la configuración manual.");
    expect((await configuration(free)).body.message).toBe("A plan is needed for manual setup.");
  });

  it("refuses a refund of an unknown transaction in German", async () => {
    const token = await signedIn("lang-refund");
    const german = await t.post("/api/billing/transactions/987654321/refund", { token, json: {}, headers: DE });
    expect(german.status).toBe(404);
    expect(german.body.errors).toEqual({ message: "Transaktion nicht gefunden.", code: "not_found" });
    const english = await t.post("/api/billing/transactions/987654321/refund", { token, json: {} });
    expect(english.body.errors).toEqual({ message: "Transaction not found.", code: "not_found" });
  });

  it("answers two-factor's refusals and status in German", async () => {
    const token = await signedIn("lang-2fa", { plan: false });
    const off = await t.post("/api/account/two-factor/disable", { token, json: { code: "123456" }, headers: DE });
    expect(off.status).toBe(409);
    expect(off.body.errors).toEqual({ message: "Die Zwei-Faktor-Authentifizierung ist ausgeschaltet.", code: "two_factor_off" });
    expect((await t.post("/api/account/two-factor/disable", { token, json: { code: "123456" } })).body.message).toBe("Two-factor authentication is off.");
    const setup = await t.post("/api/account/two-factor/setup", { token, headers: DE });
    expect(setup.status).toBe(200);
    expect(setup.body.message).toBe("Scannen Sie den QR-Code mit Ihrer Authentifizierungs-App.");
    expect((await t.get("/api/account/two-factor", { token, headers: { "accept-language": "fr" } })).body.message).toBe(
      "État de l'authentification à deux facteurs.",
    );
  });

  it("writes the security page's event details the API wrote in German, a name a person gave as it is", async () => {
    const email = uniqueEmail("lang-events");
    const userId = await t.createUser({ email, password: PASSWORD });
    const token = await t.login(email, PASSWORD);
    const at = (minutes: number) => new Date(t.clock.now().getTime() + minutes * 60_000);
    await recordSecurityEvent(t.db, { userId, kind: "card_added", detail: "Visa ending 4242", at: at(1) });
    await recordSecurityEvent(t.db, { userId, kind: "sign_in_failed", detail: "Wrong recovery code", at: at(2) });
    await recordSecurityEvent(t.db, { userId, kind: "auto_renewal_cancelled", detail: "1 Month, without signing in", at: at(3) });
    await recordSecurityEvent(t.db, { userId, kind: "passkey_added", detail: "Visa ending 4242", at: at(4) });
    const details = async (headers?: Record<string, string>) => {
      const res = await t.get("/api/account/security-events", { token, headers });
      expect(res.status, res.text).toBe(200);
      return { message: res.body.message, details: res.body.data.events.slice(0, 4).map((e: { detail: string | null }) => e.detail) };
    };
    expect(await details(DE)).toEqual({
      message: "Letzte Aktivitäten",
      details: ["Visa ending 4242", "1 Monat, ohne Anmeldung", "Falscher Wiederherstellungscode", "Visa mit Endziffern 4242"],
    });
    expect(await details()).toEqual({
      message: "Recent activity",
      details: ["Visa ending 4242", "1 Month, without signing in", "Wrong recovery code", "Visa ending 4242"],
    });
  });

  it("refuses a passkey without a fresh confirmation, and an unknown one, in German", async () => {
    const token = await signedIn("lang-passkey", { plan: false });
    const unconfirmed = await t.post("/api/account/passkeys/options", { token, headers: DE });
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.body.errors).toEqual({
      message: "Bitte bestätigen Sie erneut, dass Sie es sind, bevor Sie einen Passkey hinzufügen.",
      code: "confirmation_required",
    });
    const unknown = await t.request("DELETE", "/api/account/passkeys/987654321", { token, headers: DE });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Dieser Passkey wurde nicht gefunden.");
    expect((await t.request("DELETE", "/api/account/passkeys/987654321", { token })).body.message).toBe("This passkey was not found.");
    expect((await t.get("/api/account/passkeys", { token, headers: DE })).body.message).toBe("Ihre Passkeys.");
  });
});

describe.each(databases())("a plan change's answers in the request's language ($name)", (kind) => {
  const t = useApi(kind);

  it("says when a shorter plan starts in German (a German date), its result again in French, in English without the header", async () => {
    const who = await customer(t, uniqueEmail("lang-change"));
    const bought = await t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId: 5, email: who.email },
    });
    expect(bought.status, bought.text).toBe(200);
    const key = newKey();
    const german = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 1, idempotency_key: key }, headers: { "accept-language": "de" } });
    expect(german.status, german.text).toBe(200);
    expect(german.body.message).toMatch(/^Ihr Tarif wechselt am \d{1,2}\. \p{L}+ \d{4} zu 1 Month\.$/u);
    const french = await t.get(`/api/subscription/change/result?key=${key}`, { token: who.token, headers: { "accept-language": "fr" } });
    expect(french.body.message).toMatch(/^Votre offre passera à 1 Month le \d{1,2} \p{L}+ \d{4}\.$/u);
    const english = await t.get(`/api/subscription/change/result?key=${key}`, { token: who.token });
    expect(english.body.message).toMatch(/^Your plan changes to 1 Month on \d{2} \p{L}+, \d{4}\.$/u);
    const refused = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 7, idempotency_key: newKey() }, headers: { "accept-language": "es" } });
    expect(refused.body.message).toBe("El plan de 5 años se compra, no se cambia a él: elígelo al pagar.");
  });
});

describe.each(databases())("a German account's receipt and invoice ($name)", (kind) => {
  const t = useApi(kind);

  it("gets its receipt email in German, with German money, dates and tax sentence, and a German invoice PDF", async () => {
    const email = uniqueEmail("kunde");
    const userId = await t.createUser({ email, password: "pay-password", language: "de" });
    const token = await t.login(email, "pay-password");
    const details = await t.request("PUT", "/api/account/billing-details", {
      token,
      json: { country: "DE", name: "Jana Schmidt", address: "Hauptstraße 5\n10115 Berlin" },
    });
    expect(details.status, details.text).toBe(200);
    const paid = await t.post("/api/payments/card", {
      token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);

    const receipt = (await t.mailbox(email)).find((m) => m.subject === "Ihre VPN-Zahlungsbestätigung");
    expect(receipt, JSON.stringify((await t.mailbox(email)).map((m) => m.subject))).toBeDefined();
    expect(receipt!.text).toMatch(/^Vielen Dank für Ihre Zahlung von \d+,\d\d\s\$ für den Tarif 1 Monat\.$/m);
    expect(receipt!.text).toMatch(/^Netto \d+,\d\d\s\$, USt\. 19 % \(Deutschland\) \d+,\d\d\s\$, gesamt \d+,\d\d\s\$\.$/m);
    expect(receipt!.text).toMatch(/^Sie gilt für den Zeitraum vom \d{1,2}\. \p{L}+ \d{4} bis zum \d{1,2}\. \p{L}+ \d{4}\.$/mu);
    expect(receipt!.text).toContain("Der Tarif verlängert sich automatisch am ");
    expect(receipt!.text).toContain("jeden Monat, bis Sie die automatische Verlängerung ausschalten.");
    expect(receipt!.text).toMatch(/^Bezahlt mit: Visa mit Endziffern 4242\.$/m);
    expect(receipt!.text).toMatch(/— Ihr VPN-Team\n$/);
    expect(receipt!.text).not.toMatch(/Thank you|renews|Paid with/);

    const [transaction] = (await t.post("/api/billing/transactions", { token, json: { per_page: 5 } })).body.data.transactions;
    const res = await fetch(`${t.baseUrl}/api/invoice/${transaction.id}/stripe`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = pdfText(Buffer.from(await res.arrayBuffer()));
    for (const words of [
      "Rechnung",
      "Rechnungsnummer",
      "Rechnungsdatum",
      "Leistungsdatum",
      "Zahlungsmethode",
      "Bezahlt",
      "VERKÄUFER",
      "RECHNUNGSEMPFÄNGER",
      "Beschreibung",
      "USt.-Satz",
      "VPN-Tarif: 1 Monat",
      "Zeitraum: ",
      "Deutschland",
      "USt. 19 % (Deutschland)",
      "Gesamt (USD)",
      "Alle Beträge in US-Dollar (USD).",
      "Jana Schmidt",
    ]) {
      expect(text, words).toContain(words);
    }
    expect(text).toMatch(/\d+,\d\d\s\$/);
    expect(text).not.toMatch(/Invoice number|Bill to|All amounts in US dollars/i);
    expect(userId).toBeGreaterThan(0);
  });
});
