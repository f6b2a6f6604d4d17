import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import notes from "../../api/locales/notes.json";
import { AUTH_MESSAGES } from "../../api/http/routes/auth";
import { PLAN_MESSAGES } from "../../api/http/routes/plans";
import { SIGNUP_MESSAGES } from "../../api/http/routes/signup";
import { LANGUAGE_INVALID, LANGUAGE_REQUIRED } from "../../api/http/validation";
import { BILLING_DETAILS_MESSAGES } from "../../api/billing/billing-details";
import { LINK_MESSAGES } from "../../api/identity/account-links";
import { CODE_MESSAGES, resendTooSoonMessage } from "../../api/identity/codes";
import { PAYMENT_MESSAGES } from "../../api/payments/card-payments";
import { COUPON_MESSAGES, tooManyCouponAttempts } from "../../api/payments/coupons";
import { IDEMPOTENCY_MESSAGES } from "../../api/payments/idempotency";
import { SUBSCRIPTION_MESSAGES } from "../../api/payments/one-subscription";
import { CARD_MESSAGES } from "../../api/sandboxes/stripe/cards";
import {
  LANGUAGES,
  type Language,
  type MessageKey,
  RESOURCES,
  languageOf,
  localize,
  render,
  text,
  textOfEnglish,
  translatorFor,
} from "../../api/platform/i18n";
import { minutesOf, tooManyLoginsMessage } from "../../api/platform/rate-limit";
import { EXPORT_MAX_PER_HOUR } from "../../api/billing/data-export";
import { formatDate } from "../../api/platform/dates";
import { detailIn } from "../../api/identity/security-events";

// The API's texts (issue 36, docs/decisions/064): the same keys and variables in every language, the plural
// forms each language needs, and English exactly as the API wrote it before it had languages.

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every leaf of a resource: dotted key -> text. */
function leaves(node: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, child] of Object.entries(node as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${name}` : name;
    if (typeof child === "string") out.set(key, child);
    else for (const [k, v] of leaves(child, key)) out.set(k, v);
  }
  return out;
}

/** The keys without their plural suffix -> the forms they have (empty for a key without plurals). */
function byBase(map: Map<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const key of map.keys()) {
    const match = PLURAL.exec(key);
    const base = match ? key.slice(0, match.index) : key;
    const forms = out.get(base) ?? new Set<string>();
    if (match) forms.add(match[1]!);
    out.set(base, forms);
  }
  return out;
}

const variables = (value: string) => new Set([...value.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]!));

const namespaces = Object.keys(RESOURCES.en) as (keyof (typeof RESOURCES)["en"])[];
const others = LANGUAGES.filter((l) => l !== "en");

describe("the API's locales", () => {
  it("have the namespaces of English in every language", () => {
    for (const lng of LANGUAGES) expect(Object.keys(RESOURCES[lng]).sort()).toEqual([...namespaces].sort());
  });

  for (const ns of namespaces) {
    const en = leaves(RESOURCES.en[ns]);
    const enBase = byBase(en);

    for (const lng of others) {
      it(`${lng}/${ns}.json has every key of en/${ns}.json and no other`, () => {
        const mine = byBase(leaves(RESOURCES[lng][ns]));
        expect([...mine.keys()].sort()).toEqual([...enBase.keys()].sort());
      });

      it(`${lng}/${ns}.json has the plural forms Intl.PluralRules gives ${lng}, and the variables of English`, () => {
        const mine = leaves(RESOURCES[lng][ns]);
        const categories = new Set<string>(new Intl.PluralRules(lng).resolvedOptions().pluralCategories);
        for (const [base, enForms] of enBase) {
          const forms = byBase(mine).get(base) ?? new Set<string>();
          if (enForms.size === 0) {
            expect(forms.size, `${lng}:${ns}:${base} is not a plural in English`).toBe(0);
          } else {
            expect([...forms].sort(), `${lng}:${ns}:${base}'s forms`).toEqual([...categories].sort());
          }
          const said = (map: Map<string, string>, forms: Set<string>) => {
            const all = new Set<string>();
            for (const value of forms.size ? [...forms].map((f) => map.get(`${base}_${f}`)!) : [map.get(base)!]) {
              for (const name of variables(value)) all.add(name);
            }
            return all;
          };
          expect([...said(mine, forms)].sort(), `${lng}:${ns}:${base}'s variables`).toEqual([...said(en, enForms)].sort());
        }
      });
    }

    it(`en/${ns}.json's plurals have the forms English needs`, () => {
      const categories = new Intl.PluralRules("en").resolvedOptions().pluralCategories;
      for (const [base, forms] of enBase) if (forms.size) expect([...forms].sort(), base).toEqual([...categories].sort());
    });
  }

  it("have no empty text, and a note only for a key that exists", () => {
    for (const lng of LANGUAGES) {
      for (const ns of namespaces) for (const [key, value] of leaves(RESOURCES[lng][ns])) expect(value.trim(), `${lng}:${ns}:${key}`).not.toBe("");
    }
    const keys = new Set(namespaces.flatMap((ns) => [...byBase(leaves(RESOURCES.en[ns])).keys()].map((k) => `${ns}:${k}`)));
    for (const key of Object.keys(notes)) expect(keys.has(key), key).toBe(true);
  });

  it("give every constant English answer one key (found by its text)", () => {
    const seen = new Map<string, string>();
    for (const ns of ["messages", "validation"] as const) {
      for (const [key, value] of leaves(RESOURCES.en[ns])) {
        if (value.includes("{{") || PLURAL.test(key)) continue;
        expect(seen.get(value), `'${value}' is both ${seen.get(value)} and ${ns}:${key}`).toBeUndefined();
        seen.set(value, `${ns}:${key}`);
      }
    }
  });
});

describe("the answers' messages", () => {
  const constants = {
    CODE_MESSAGES,
    AUTH_MESSAGES,
    SIGNUP_MESSAGES,
    PLAN_MESSAGES,
    COUPON_MESSAGES,
    PAYMENT_MESSAGES,
    SUBSCRIPTION_MESSAGES,
    IDEMPOTENCY_MESSAGES,
    BILLING_DETAILS_MESSAGES,
    CARD_MESSAGES,
  };

  it("of sign-in, sign-up, codes, reset, coupons, checkout, payments and billing details all have a key", () => {
    const missing: string[] = [];
    for (const [name, messages] of Object.entries(constants)) {
      for (const [key, value] of Object.entries(messages)) {
        // The gateway's 3-D Secure instructions for developers (never shown to a customer) stay English.
        if (typeof value !== "string" || (name === "CARD_MESSAGES" && key === "invoiceRequiresAction")) continue;
        if (!textOfEnglish(value)) missing.push(`${name}.${key}: ${value}`);
      }
    }
    for (const value of [LANGUAGE_INVALID, LANGUAGE_REQUIRED, "These credentials do not match our records.", "Unauthenticated."]) {
      if (!textOfEnglish(value)) missing.push(value);
    }
    expect(missing).toEqual([]);
  });

  it("with variables say in English exactly what the API said before", () => {
    for (const seconds of [1, 59, 60, 61, 900]) {
      expect(render("en", text("messages:signIn.tooManyFailures", { count: minutesOf(seconds) }))).toBe(tooManyLoginsMessage(seconds));
      expect(render("en", text("messages:coupons.tooManyAttempts", { count: minutesOf(seconds) }))).toBe(tooManyCouponAttempts(seconds));
    }
    for (const seconds of [1, 2, 30]) expect(render("en", text("messages:codes.wait", { count: seconds }))).toBe(resendTooSoonMessage(seconds));
    for (const provider of ["Google", "Apple"]) {
      expect(render("en", text("messages:links.existingAccount", { provider }))).toBe(LINK_MESSAGES.existingAccount(provider));
      expect(render("en", text("messages:links.loginNotVerified", { provider }))).toBe(LINK_MESSAGES.loginNotVerified(provider));
      expect(render("en", text("messages:links.loginEmailMismatch", { provider }))).toBe(LINK_MESSAGES.loginEmailMismatch(provider));
      expect(render("en", text("messages:links.loginEmailUnverified", { provider }))).toBe(LINK_MESSAGES.loginEmailUnverified(provider));
      expect(render("en", text("messages:links.loginReplayed", { provider }))).toBe(LINK_MESSAGES.loginReplayed(provider));
      expect(render("en", text("messages:links.unavailable", { provider }))).toBe(LINK_MESSAGES.unavailable(provider));
      expect(render("en", text("messages:links.providerOff", { provider }))).toBe(LINK_MESSAGES.providerOff(provider));
    }
    expect(render("en", text("messages:billingDetails.vatFormat", { country: { country: "DE" }, prefix: "DE", example: "DE123456789" }))).toBe(
      BILLING_DETAILS_MESSAGES.vatFormat("DE"),
    );
  });

  it("are plural by each language's rules", () => {
    const wait = (lng: Language, count: number) => translatorFor(lng)("messages:codes.wait", { count });
    expect(wait("de", 1)).toBe("Bitte warten Sie 1 Sekunde, bevor Sie einen neuen Code anfordern.");
    expect(wait("de", 2)).toBe("Bitte warten Sie 2 Sekunden, bevor Sie einen neuen Code anfordern.");
    // French: 0 and 1 are singular.
    expect(wait("fr", 0)).toBe("Veuillez patienter 0 seconde avant de demander un nouveau code.");
    expect(wait("fr", 2)).toBe("Veuillez patienter 2 secondes avant de demander un nouveau code.");
    expect(wait("es", 1)).toBe("Espera 1 segundo antes de solicitar un código nuevo.");
    expect(translatorFor("fr")("messages:signIn.tooManyFailures", { count: 1_000_000 })).toContain("1000000 minutes");
  });

  it("write a country's name in the language", () => {
    const vat = text("messages:billingDetails.vatFormat", { country: { country: "DE" }, prefix: "DE", example: "DE123456789" });
    expect(render("de", vat)).toBe("Das ist keine USt-IdNr. des gewählten Landes (Deutschland): Sie beginnt dort mit DE, z. B. DE123456789.");
    expect(render("es", vat)).toContain("de Alemania");
  });

  it("stay English, byte for byte, in English and without a key", () => {
    expect(localize("These credentials do not match our records.", "en")).toBe("These credentials do not match our records.");
    expect(localize("Some message nobody translated.", "de")).toBe("Some message nobody translated.");
    expect(localize("These credentials do not match our records.", "de")).toBe("Diese Anmeldedaten stimmen nicht mit unseren Unterlagen überein.");
  });
});

/*
 * Every customer-visible message of the API has a key (issue 36): the test reads the API's sources, so a new
 * message constant, message map or literal thrown in a DomainError fails it until its key is added (or it is
 * listed below as one no customer sees).
 */
const API_DIR = new URL("../../api/", import.meta.url).pathname;

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Messages only developers, webhooks or VPN servers get: they stay English (docs/decisions/064). */
const NOT_FOR_CUSTOMERS = new Set([
  // The gateway's 3-D Secure instructions for developers.
  "CARD_MESSAGES.invoiceRequiresAction",
  // The VPN servers' check of service credentials (answered to a VPN node, not to a person).
  "CREDENTIALS_MESSAGES.accepted",
  "CREDENTIALS_MESSAGES.wrong",
  "CREDENTIALS_MESSAGES.noPlan",
  "CREDENTIALS_MESSAGES.tooManyFailures",
  // Headers and fields the portal's own code sends.
  "IDEMPOTENCY_KEY_MESSAGES.header",
  "IDEMPOTENCY_KEY_MESSAGES.conflict",
  "WALLET_MESSAGES.source",
  "WALLET_MESSAGES.currency",
  "WALLET_MESSAGES.amountNotCents",
  "WALLET_MESSAGES.merchantSession",
  "WALLET_MESSAGES.merchantValidationLive",
  "WALLET_MESSAGES.domainNotRegistered",
  "WALLET_MESSAGES.validationUrl",
  // Webhooks and notifications from the payment providers.
  "PAYPAL_MESSAGES.received",
  "PAYPAL_MESSAGES.badSignature",
  "CRYPTO_MESSAGES.forged",
  "CRYPTO_MESSAGES.received",
  "WEBHOOK_MESSAGES.badSignature",
  "WEBHOOK_MESSAGES.received",
]);

/** Literal messages (thrown or answered) no customer sees. */
const LITERALS_NOT_FOR_CUSTOMERS = new Set([
  "Database unavailable.",
  "A VPN server token is required.",
  "The notification names no invoice.",
  "Peers",
  "The token or subscription id field is required.",
  // Inputs only the portal's own code or a VPN server sends.
  "The type must be enable or disable.",
  "The currency must be USD.",
  "The handshake time must be an ISO 8601 date and time.",
  "The handshakes field must be a list.",
  "At most 500 handshakes per request.",
  "Handshakes recorded.",
  "The credential id is required.",
  "The credential type must be public-key.",
  // What we tell PayPal when we cancel a checkout's subscription.
  "Replaced by a newer checkout.",
]);

/** Sources whose literals are for operators and developers: the configuration's, the database's, the dev routes'. */
const OPERATOR_SOURCES = /^(platform\/config\.ts|platform\/vpn-servers-file\.ts|platform\/db\/|http\/routes\/dev\.ts)/;

/** Constants of the API that are data, not messages (a status, a platform's name, a sender, the sandbox's own page). */
const CONSTANTS_NOT_MESSAGES = new Set(["WEB_PLATFORM", "FAILED_STATUS", "DEFAULT_MAIL_FROM", "SANDBOX_CARD_MESSAGE"]);

/**
 * Messages with variables: each carries its Text where it is thrown (or is answered English on purpose),
 * and the Text says in English exactly what the function says.
 */
const WITH_VARIABLES: Record<string, ((fn: (...args: never[]) => string) => void) | "english"> = {
  "TWO_FACTOR_MESSAGES.tooManyDisable": (fn) => sameForSeconds(fn, "messages:twoFactor.tooManyWrongCodes"),
  "TWO_FACTOR_MESSAGES.tooManyWrongPasswords": (fn) => sameForSeconds(fn, "messages:twoFactor.tooManyWrongPasswords"),
  "PASSKEY_MESSAGES.tooManyAttempts": (fn) => sameForSeconds(fn, "messages:passkeys.tooManyAttempts"),
  "PASSKEY_MESSAGES.tooManyConfirmations": (fn) => sameForSeconds(fn, "messages:passkeys.tooManyConfirmations"),
  "EMAIL_CHANGE_MESSAGES.tooManyTries": (fn) => sameForMinutes(fn, "messages:confirm.tooManyPasswords"),
  "DELETION_MESSAGES.tooManyTries": (fn) => sameForMinutes(fn, "messages:confirm.tooManyPasswords"),
  "EXPORT_MESSAGES.tooMany": (fn) => {
    for (const minutes of [1, 2, 60]) {
      expect(render("en", text("messages:dataExport.tooMany", { max: EXPORT_MAX_PER_HOUR, count: minutes }))).toBe((fn as (m: number) => string)(minutes));
    }
  },
  "LINK_MESSAGES.existingAccount": (fn) => sameForProvider(fn, "messages:links.existingAccount"),
  "LINK_MESSAGES.loginNotVerified": (fn) => sameForProvider(fn, "messages:links.loginNotVerified"),
  "LINK_MESSAGES.loginEmailMismatch": (fn) => sameForProvider(fn, "messages:links.loginEmailMismatch"),
  "LINK_MESSAGES.loginEmailUnverified": (fn) => sameForProvider(fn, "messages:links.loginEmailUnverified"),
  "LINK_MESSAGES.loginReplayed": (fn) => sameForProvider(fn, "messages:links.loginReplayed"),
  "LINK_MESSAGES.unavailable": (fn) => sameForProvider(fn, "messages:links.unavailable"),
  "LINK_MESSAGES.providerOff": (fn) => sameForProvider(fn, "messages:links.providerOff"),
  "BILLING_DETAILS_MESSAGES.vatFormat": (fn) =>
    expect(render("en", text("messages:billingDetails.vatFormat", { country: { country: "DE" }, prefix: "DE", example: "DE123456789" }))).toBe(
      (fn as (c: string) => string)("DE"),
    ),
  // Answered to the VPN servers, not to a customer.
  "CREDENTIALS_MESSAGES.tooManyFailures": "english",
  "PLAN_CHANGE_MESSAGES.changed": (fn) => {
    for (const title of ["1 Year", "1 Month"]) expect(render("en", text("messages:planChanges.changed", { title }))).toBe((fn as (t: string) => string)(title));
  },
  "PLAN_CHANGE_MESSAGES.scheduled": (fn) => {
    for (const at of ["2027-03-05T14:05:00.000Z", "2026-12-31T23:59:59.000Z"]) {
      expect(render("en", text("messages:planChanges.scheduled", { title: "1 Month", date: { date: at } }))).toBe(
        (fn as (t: string, d: string) => string)("1 Month", formatDate(at)),
      );
    }
    expect(render("de", text("messages:planChanges.scheduled", { title: "1 Month", date: { date: "2027-03-05T14:05:00.000Z" } }))).toBe(
      "Ihr Tarif wechselt am 5. März 2027 zu 1 Month.",
    );
  },
  "LINK_MESSAGES.connectedElsewhere": (fn) => sameForProvider(fn, "messages:links.connectedElsewhere"),
  "LINK_MESSAGES.alreadyConnected": (fn) => sameForProvider(fn, "messages:links.alreadyConnected"),
  "LINK_MESSAGES.connectReplayed": (fn) => sameForProvider(fn, "messages:links.connectReplayed"),
  "LINK_MESSAGES.connectNotVerified": (fn) => sameForProvider(fn, "messages:links.connectNotVerified"),
  "LINK_MESSAGES.connectEmailMismatch": (fn) => sameForProvider(fn, "messages:links.connectEmailMismatch"),
  "LINK_MESSAGES.connectEmailUnverified": (fn) => sameForProvider(fn, "messages:links.connectEmailUnverified"),
};

function sameForSeconds(fn: (...args: never[]) => string, key: MessageKey) {
  for (const seconds of [1, 59, 60, 61, 900]) expect(render("en", text(key, { count: minutesOf(seconds) }))).toBe((fn as (s: number) => string)(seconds));
}
function sameForMinutes(fn: (...args: never[]) => string, key: MessageKey) {
  for (const minutes of [1, 2, 15]) expect(render("en", text(key, { count: minutes }))).toBe((fn as (m: number) => string)(minutes));
}
function sameForProvider(fn: (...args: never[]) => string, key: MessageKey) {
  for (const provider of ["Google", "Apple"]) expect(render("en", text(key, { provider }))).toBe((fn as (p: string) => string)(provider));
}

const SOURCES = sourcesOf(API_DIR).filter((path) => !relative(API_DIR, path).startsWith("sandboxes/") || path.endsWith("sandboxes/stripe/cards.ts"));

describe("every customer-visible message of the API", () => {
  it("of every *_MESSAGES map and message constant has a key, or its Text where it has variables", async () => {
    const missing: string[] = [];
    const functions: string[] = [];
    for (const path of SOURCES) {
      const source = readFileSync(path, "utf8");
      const maps = [...source.matchAll(/^export const (\w+_MESSAGES)\b/gm)].map((m) => m[1]!);
      const constants = [...source.matchAll(/^export const ([A-Z][A-Z_]*) = "([^"]*)";/gm)];
      if (!maps.length && !constants.length) continue;
      const module = (await import(path)) as Record<string, unknown>;
      for (const name of maps) {
        for (const [key, value] of Object.entries(module[name] as Record<string, unknown>)) {
          const id = `${name}.${key}`;
          if (typeof value === "function") {
            functions.push(id);
            const check = WITH_VARIABLES[id];
            if (!check) missing.push(`${id}: a message with variables and no Text`);
            else if (check !== "english") check(value as (...args: never[]) => string);
            continue;
          }
          if (typeof value !== "string" || NOT_FOR_CUSTOMERS.has(id)) continue;
          if (!textOfEnglish(value)) missing.push(`${id}: ${value}`);
        }
      }
      // A constant that is a sentence (a capital, a space, a full stop or none): a message.
      for (const [, name, value] of constants) {
        if (!/^[A-Z][^/]* [^/]*$/.test(value!) || name!.endsWith("_SUBJECT") || name!.endsWith("_LABEL") || name!.endsWith("_NOTE") || CONSTANTS_NOT_MESSAGES.has(name!)) continue;
        if (!textOfEnglish(value!)) missing.push(`${name}: ${value}`);
      }
    }
    expect(missing).toEqual([]);
    // Every function listed is still one of the API's (no stale entry).
    expect(Object.keys(WITH_VARIABLES).filter((id) => !functions.includes(id))).toEqual([]);
  });

  it("thrown or answered as a literal has a key, and one with variables carries its Text", () => {
    const missing: string[] = [];
    for (const path of SOURCES) {
      const source = readFileSync(path, "utf8");
      const where = relative(API_DIR, path);
      // new DomainError("code", "literal" …) and fallbacks: DomainError("code", x ?? "literal" …)
      for (const m of source.matchAll(/DomainError\(\s*"[a-z_]+",\s*(?:[\w.?\s[\]]*\?\?\s*|[\w.?\s]*\|\|\s*)?"((?:[^"\\]|\\.)*)"/g)) {
        if (!LITERALS_NOT_FOR_CUSTOMERS.has(m[1]!) && !textOfEnglish(m[1]!)) missing.push(`${where}: ${m[1]}`);
      }
      // A validation message, a handler's answer or a stored reason: { error | message | required: "literal" }
      if (!OPERATOR_SOURCES.test(where)) {
        for (const m of source.matchAll(/\b(?:message|error|required):\s*"((?:[^"\\]|\\.)*)"/g)) {
          if (!LITERALS_NOT_FOR_CUSTOMERS.has(m[1]!) && !textOfEnglish(m[1]!)) missing.push(`${where}: ${m[1]}`);
        }
      }
      // sendOk(res, data, "literal")
      for (const m of source.matchAll(/sendOk\(\s*res,[^;]*?,\s*"((?:[^"\\]|\\.)*)"\s*[,)]/g)) {
        if (!LITERALS_NOT_FOR_CUSTOMERS.has(m[1]!) && !textOfEnglish(m[1]!)) missing.push(`${where}: ${m[1]}`);
      }
      // A message built in place (a template literal) must carry its Text.
      for (const m of source.matchAll(/new DomainError\(\s*"([a-z_]+)",\s*`[^`]*`([^;]*);/g)) {
        if (!/\btext:/.test(m[2]!) && !/webhooks/.test(m[0]!)) missing.push(`${where}: DomainError("${m[1]}", \`…\`) without its Text`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("of the rate limits with a count carry their Text where they are thrown", () => {
    const missing: string[] = [];
    for (const path of SOURCES) {
      const source = readFileSync(path, "utf8");
      for (const m of source.matchAll(/new DomainError\(\s*"rate_limited",([^;]*);/g)) {
        const call = m[1]!;
        // A constant message is found by its English; one made by a function needs its Text.
        if (/\w\(/.test(call.split(",")[0]!) && !/\btext:/.test(call) && !/webhooks|CREDENTIALS_MESSAGES/.test(call)) {
          missing.push(`${relative(API_DIR, path)}: ${call.trim().slice(0, 80)}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("of the security page's event details: English as recorded, the API's own details in the language", () => {
    for (const [kind, detail] of [
      ["card_added", "Visa ending 4242"],
      ["card_removed", "Card ending 0005"],
      ["sign_in_failed", "Wrong two-factor code"],
      ["sign_in_failed", "Wrong recovery code"],
      ["auto_renewal_cancelled", "1 Month, without signing in"],
    ] as const) {
      expect(detailIn("en", kind, detail)).toBe(detail);
      expect(detailIn("de", kind, detail), detail).not.toBe(detail);
    }
    expect(detailIn("de", "card_removed", "Card ending 0005")).toBe("Karte mit Endziffern 0005");
    expect(detailIn("fr", "card_added", "Visa ending 4242")).toBe("Visa se terminant par 4242");
    expect(detailIn("es", "sign_in_failed", "Wrong two-factor code")).toBe("Código de verificación en dos pasos incorrecto");
    // A name a person gave stays, whatever it says.
    expect(detailIn("de", "passkey_added", "Visa ending 4242")).toBe("Visa ending 4242");
    expect(detailIn("de", "wireguard_configuration_created", "Router (de-fra-wg-001.vpn.example)")).toBe("Router (de-fra-wg-001.vpn.example)");
    expect(detailIn("de", "card_added", null)).toBeNull();
  });

  it("in German, French and Spanish: the new areas' keys say it in the language", () => {
    const de = translatorFor("de");
    expect(de("messages:passkeys.nameTooLong")).toBe("Der Name des Passkeys darf höchstens 60 Zeichen lang sein");
    expect(de("messages:twoFactor.tooManyForAccount", { count: 1 })).toContain("1 Minute erneut");
    expect(translatorFor("fr")("messages:support.tooMany", { count: 1 })).toContain("1 minute.");
    expect(translatorFor("es")("messages:confirm.tooManyPasswords", { count: 1 })).toContain("1 minuto.");
    expect(translatorFor("es")("messages:dataExport.tooMany", { max: 5, count: 3 })).toBe("Puedes descargar tus datos 5 veces por hora. Vuelve a intentarlo dentro de 3 minutos.");
  });
});

describe("Accept-Language", () => {
  it.each([
    [undefined, "en"],
    ["", "en"],
    ["de", "de"],
    ["de-DE", "de"],
    ["DE-at", "de"],
    ["fr-CH,fr;q=0.9,en;q=0.8", "fr"],
    ["en-US,en;q=0.9,de;q=0.8", "en"],
    ["it-IT,it;q=0.9,es;q=0.5", "es"],
    ["es;q=0.5,fr;q=0.8", "fr"],
    ["de;q=0,fr", "fr"],
    ["de;q=0", "en"],
    ["*", "en"],
    ["pt-BR", "en"],
    ["x;;q=abc, fr", "fr"],
  ] as const)("%s -> %s", (header, lng) => {
    expect(languageOf(header)).toBe(lng);
  });
});
