import { describe, expect, it } from "vitest";
import * as billingEmails from "../../api/billing/emails";
import * as dunningEmails from "../../api/billing/dunning-emails";
import * as identityEmails from "../../api/identity/emails";
import { passkeyAddedEmail, passkeyCodeEmail } from "../../api/identity/passkeys";
import * as paymentEmails from "../../api/payments/emails";
import { planChangeEmail } from "../../api/payments/plan-changes";
import { type TaxTreatment, taxSentenceOf, taxedAmount } from "../../api/payments/tax";
import { LANGUAGES, type Language } from "../../api/platform/i18n";
import type { Mail } from "../../api/platform/mailer";

/*
 * Every email the product sends, rendered with sample values (issue 33 item 7): each has a text part
 * and an HTML part from the one template, and the two say the same words. A new email in one of the
 * email modules fails "covers every email" until it has a sample here.
 */

const URL = "https://vpn.example.com";
const TO = "alex@example.com";
const CODE = "012345";
const ORIGIN = { at: new Date("2026-11-28T14:02:00Z"), browser: "Firefox 133 on Windows 11", network: "203.0.113.0/24" };
const RENEWAL = { amount: "$9.99", card: "Visa ending in 4242", graceUntil: "December 14, 2026", link: `${URL}/billing/pay` };
const TAXED = (lng: Language) => taxSentenceOf(taxedAmount({ country: "DE", rateBasisPoints: 1900, reverseCharge: false }, 999), lng);
const GERMANY: TaxTreatment = { country: "DE", rateBasisPoints: 1900, reverseCharge: false };
const CHANGE = {
  chargedNowCents: 8554,
  chargedNow: taxedAmount(GERMANY, 7188),
  newEndDate: new Date("2027-11-28T00:00:00Z"),
  nextRenewal: { amountCents: 8554, taxed: taxedAmount(GERMANY, 7188), date: new Date("2027-11-28T00:00:00Z") },
};

const samples: Record<string, (lng: Language) => Mail> = {
  signupCodeEmail: (lng) => identityEmails.signupCodeEmail(TO, CODE, {}, lng),
  "signupCodeEmail (checkout)": (lng) => identityEmails.signupCodeEmail(TO, CODE, { atCheckout: true }, lng),
  loginCodeEmail: (lng) => identityEmails.loginCodeEmail(TO, CODE, lng),
  deletionCodeEmail: (lng) => identityEmails.deletionCodeEmail(TO, CODE, lng),
  twoFactorCodeEmail: (lng) => identityEmails.twoFactorCodeEmail(TO, CODE, lng),
  cancelCodeEmail: (lng) => identityEmails.cancelCodeEmail(TO, CODE, lng),
  resetCodeEmail: (lng) => identityEmails.resetCodeEmail(TO, CODE, lng),
  emailChangeAuthCodeEmail: (lng) => identityEmails.emailChangeAuthCodeEmail(TO, CODE, lng),
  emailChangeCodeEmail: (lng) => identityEmails.emailChangeCodeEmail(TO, CODE, lng),
  alreadyRegisteredEmail: (lng) => identityEmails.alreadyRegisteredEmail(TO, URL, lng),
  passwordChangedEmail: (lng) => identityEmails.passwordChangedEmail(TO, URL, lng),
  secondFactorFailuresEmail: (lng) => identityEmails.secondFactorFailuresEmail(TO, { failures: 5, firstFactor: "password", at: ORIGIN.at, publicUrl: URL }, lng),
  welcomeEmail: (lng) => identityEmails.welcomeEmail(TO, URL, lng),
  passwordSetEmail: (lng) => identityEmails.passwordSetEmail(TO, URL, lng),
  setPasswordLinkEmail: (lng) => identityEmails.setPasswordLinkEmail(TO, `${URL}/generate-password/abc`, lng),
  emailChangeTakenEmail: (lng) => identityEmails.emailChangeTakenEmail(TO, URL, lng),
  emailChangedEmail: (lng) => identityEmails.emailChangedEmail(TO, `${URL}/email-revert/abc`, lng),
  newSignInEmail: (lng) => identityEmails.newSignInEmail(TO, ORIGIN, `${URL}/generate-password/abc`, URL, lng),
  "newSignInEmail (unknown browser)": (lng) => identityEmails.newSignInEmail(TO, { ...ORIGIN, browser: null, network: null }, `${URL}/generate-password/abc`, URL, lng),
  twoFactorOnEmail: (lng) => identityEmails.twoFactorOnEmail(TO, ORIGIN, URL, lng),
  twoFactorOffEmail: (lng) => identityEmails.twoFactorOffEmail(TO, ORIGIN, URL, lng),
  recoveryCodeUsedEmail: (lng) => identityEmails.recoveryCodeUsedEmail(TO, ORIGIN, URL, lng),
  accountDeletedEmail: (lng) => identityEmails.accountDeletedEmail(TO, ORIGIN, URL, lng),
  passkeyCodeEmail: (lng) => passkeyCodeEmail(TO, CODE, lng),
  passkeyAddedEmail: (lng) => passkeyAddedEmail(TO, "Work laptop", URL, lng),
  refundConfirmationEmail: (lng) => billingEmails.refundConfirmationEmail(TO, { amount: "$71.88" }, lng),
  refundRequestEmail: (lng) => billingEmails.refundRequestEmail(TO, { amount: "$71.88", address: "bc1qexampleaddress" }, lng),
  receiptEmail: (lng) =>
    billingEmails.receiptEmail(TO, {
      amount: "$71.88",
      plan: "1 Year",
      periodStart: "2026-11-28T14:02:00Z",
      periodEnd: "2028-02-28T14:02:00Z",
      paidWith: "Visa ending in 4242",
      invoiceUrl: `${URL}/billing/invoice/7`,
      number: "VPN-2026-0007",
      buys: "15 months (12 months + 3 months free)",
      renewal: { amount: "$71.88", everyMonths: 12, on: "2028-02-28T14:02:00Z" },
    }, lng),
  "receiptEmail (crypto)": (lng) =>
    billingEmails.receiptEmail(TO, {
      amount: "$71.88",
      plan: "1 Year",
      periodStart: "2026-11-28T14:02:00Z",
      periodEnd: "2027-11-28T14:02:00Z",
      paidWith: "Bitcoin",
      invoiceUrl: `${URL}/billing/invoice/8`,
      number: "VPN-2026-0008",
      renewal: null,
      crypto: true,
    }, lng),
  renewalReminderEmail: (lng) =>
    billingEmails.renewalReminderEmail(TO, { plan: "1 Month", changesTo: "1 Year", date: "2026-12-28", amount: "$71.88", card: { brand: "visa", last4: "4242" }, settingsUrl: `${URL}/billing` }, lng),
  "renewalReminderEmail (PayPal)": (lng) =>
    billingEmails.renewalReminderEmail(TO, { plan: "1 Month", date: "2026-12-28", amount: "$9.99", card: null, settingsUrl: `${URL}/billing`, paypal: true }, lng),
  "autoRenewalEmail (on)": (lng) =>
    billingEmails.autoRenewalEmail(TO, { enabled: true, plan: "1 Year", at: "2026-11-28T14:02:00Z", endsOn: "2027-11-28", amount: "$71.88", settingsUrl: `${URL}/billing` }, lng),
  "autoRenewalEmail (off)": (lng) =>
    billingEmails.autoRenewalEmail(TO, { enabled: false, plan: "1 Year", at: "2026-11-28T14:02:00Z", endsOn: "2027-11-28", amount: "$71.88", settingsUrl: `${URL}/billing` }, lng),
  cardExpiryEmail: (lng) => billingEmails.cardExpiryEmail(TO, { card: { brand: "mastercard", last4: "4444" }, expires: "December 2026", updateUrl: `${URL}/payment-methods` }, lng),
  planEndedEmail: (lng) => billingEmails.planEndedEmail(TO, { plan: "1 Month", endedOn: "2026-11-28", pricingUrl: `${URL}/pricing` }, lng),
  paymentFailedEmail: (lng) => dunningEmails.paymentFailedEmail(TO, { ...RENEWAL, reason: "Your card was declined." }, lng),
  gracePeriodEndingEmail: (lng) => dunningEmails.gracePeriodEndingEmail(TO, RENEWAL, lng),
  subscriptionEndedUnpaidEmail: (lng) => dunningEmails.subscriptionEndedUnpaidEmail(TO, { plan: "1 Month", link: `${URL}/pricing` }, lng),
  paypalPaymentFailedEmail: (lng) => dunningEmails.paypalPaymentFailedEmail(TO, { amount: "$9.99", reason: "PayPal could not collect the payment.", graceUntil: "December 14, 2026" }, lng),
  paypalGraceEndingEmail: (lng) => dunningEmails.paypalGraceEndingEmail(TO, { amount: "$9.99", graceUntil: "December 14, 2026" }, lng),
  cryptoRenewalEmail: (lng) => paymentEmails.cryptoRenewalEmail(TO, { plan: "1 Year", amount: "$71.88", expires: "December 1, 2026", link: `${URL}/subscription/bitpay-pay-due-invoice/abc` }, lng),
  "planChangeEmail (card)": (lng) => planChangeEmail(TO, { from: "1 Month", to: "1 Year", at: null, summary: CHANGE, paidBy: "card" }, lng),
  "planChangeEmail (PayPal)": (lng) => planChangeEmail(TO, { from: "1 Month", to: "1 Year", at: null, summary: CHANGE, paidBy: "paypal" }, lng),
  // With VAT (issue 35): the one net/VAT/total sentence (tax.ts's taxSentenceOf).
  "receiptEmail (VAT)": (lng) =>
    billingEmails.receiptEmail(TO, {
      amount: "$11.89",
      taxSentence: TAXED(lng),
      plan: "1 Month",
      periodStart: "2026-11-28T14:02:00Z",
      periodEnd: "2026-12-28T14:02:00Z",
      paidWith: "Visa ending in 4242",
      invoiceUrl: `${URL}/billing/invoice/9`,
      number: "VPN-2026-0009",
      renewal: { amount: "$11.89", everyMonths: 1, on: "2026-12-28T14:02:00Z" },
    }, lng),
  "renewalReminderEmail (VAT)": (lng) =>
    billingEmails.renewalReminderEmail(TO, { plan: "1 Month", date: "2026-12-28", amount: "$11.89", taxSentence: TAXED(lng), card: { brand: "visa", last4: "4242" }, settingsUrl: `${URL}/billing` }, lng),
  "autoRenewalEmail (on, VAT)": (lng) =>
    billingEmails.autoRenewalEmail(TO, { enabled: true, plan: "1 Month", at: "2026-11-28T14:02:00Z", endsOn: "2026-12-28", amount: "$11.89", taxSentence: TAXED(lng), settingsUrl: `${URL}/billing` }, lng),
  "paymentFailedEmail (VAT)": (lng) => dunningEmails.paymentFailedEmail(TO, { ...RENEWAL, amount: "$11.89", taxSentence: TAXED(lng), reason: "Your card was declined." }, lng),
  "paypalGraceEndingEmail (VAT)": (lng) => dunningEmails.paypalGraceEndingEmail(TO, { amount: "$11.89", taxSentence: TAXED(lng), graceUntil: "December 14, 2026" }, lng),
  "cryptoRenewalEmail (VAT)": (lng) =>
    paymentEmails.cryptoRenewalEmail(TO, { plan: "1 Month", amount: "$11.89", taxSentence: TAXED(lng), expires: "December 1, 2026", link: `${URL}/subscription/bitpay-pay-due-invoice/abc` }, lng),
  "refundConfirmationEmail (crypto)": (lng) =>
    billingEmails.refundConfirmationEmail(TO, { amount: "$11.89", crypto: { address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", creditNote: "CN-2026-0001" } }, lng),
};

/** The words a reader sees in the HTML part, one paragraph a line, as the text part has them. */
function visibleText(html: string): string {
  const body = /<body>([\s\S]*)<\/body>/.exec(html)?.[1] ?? "";
  return body
    .replace(/<br>/g, "\n")
    .replace(/<\/p>/g, "\n\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}

const emailModules = { ...identityEmails, ...billingEmails, ...dunningEmails, ...paymentEmails };

describe("every email", () => {
  it("covers every email of the email modules", () => {
    const made = Object.keys(emailModules).filter((name) => /Email$/.test(name) && typeof emailModules[name as keyof typeof emailModules] === "function");
    const sampled = new Set(Object.keys(samples).map((name) => name.split(" ")[0]));
    expect(made.filter((name) => !sampled.has(name))).toEqual([]);
  });

  const signOffs: Record<Language, RegExp> = { en: /— The VPN team\n$/, de: /— Ihr VPN-Team\n$/, fr: /— L'équipe VPN\n$/, es: /— El equipo de VPN\n$/ };
  for (const [name, make] of Object.entries(samples)) {
    for (const lng of LANGUAGES) {
    it(`${name} (${lng}): a text part and an HTML part saying the same`, () => {
      const mail = make(lng);
      expect(mail.to).toBe(TO);
      expect(mail.subject.length).toBeGreaterThan(0);
      expect(mail.text).toMatch(signOffs[lng]);
      expect(mail.html).toMatch(new RegExp(`^<!doctype html><html lang="${lng}"><head><meta charset="utf-8"><title>`));
      // Every variable filled in, and (another language) no English sentence left.
      expect(mail.text).not.toContain("{{");
      if (lng !== "en") {
        expect(mail.subject).not.toBe(make("en").subject);
        const english = new Set(make("en").text.split("\n\n"));
        const same = mail.text.split("\n\n").filter((p) => english.has(p) && /[a-z]{4,} [a-z]{4,}/i.test(p) && !/^https?:/.test(p));
        // Only what is data, not words of ours (an address, a card's name passed in, a gateway's reason).
        expect(same.filter((p) => !/^(Visa ending|Your card was declined|PayPal could not collect)/.test(p))).toEqual([]);
      }
      expect(mail.html).toContain(`<title>${mail.subject.replace(/'/g, "&#39;")}</title>`);
      expect(visibleText(mail.html)).toBe(mail.text.trim());
      // Every link of the text is a link in the HTML.
      for (const link of mail.text.match(/https?:\/\/\S+/g) ?? []) expect(mail.html).toContain(`href="${link}"`);
      // No doubled word ('was turned on on November 28').
      expect(mail.text).not.toMatch(/\b(\w+) \1\b/i);
      // An email that carries a code has no other run of six digits; one without a code has none.
      const runs = mail.text.match(/\d{6}/g) ?? [];
      expect(runs).toEqual(/CodeEmail\b/.test(name) ? [CODE] : []);
    });
    }
  }

  it("say where the customer is", () => {
    expect(samples["signupCodeEmail (checkout)"]!("en").text).toContain("Enter it in the checkout's 'Verify Your Email' window");
    expect(samples["signupCodeEmail (checkout)"]!("en").text).not.toContain("sign-up page");
    expect(samples.signupCodeEmail!("en").text).toContain("Enter it on the sign-up page");
    // The plan change's receipt is sent before the change's email (plan-changes.ts).
    expect(samples["planChangeEmail (card)"]!("en").text).toContain("Its receipt is in a separate email.");
    expect(samples["planChangeEmail (card)"]!("en").text).not.toContain("follows");
    expect(samples["autoRenewalEmail (on)"]!("en").text).toContain("You turned on auto-renewal of your 1 Year plan: ");
    const welcome = samples.welcomeEmail!("en");
    expect(welcome.subject).toBe("Welcome to VPN: your account is ready");
    expect(welcome.text).toContain(`${URL}/login`);
    expect(welcome.text).toContain(`${URL}/forget-password`);
    expect(welcome.text).toContain("the password you chose in the checkout");
  });
});
