import { type EmailParagraph, renderEmail } from "../platform/email-template";
import { type Language, type MessageKey, type Translate, formatDateTimeIn, translatorFor } from "../platform/i18n";
import type { Mail } from "../platform/mailer";

/*
 * The identity emails (codes, passwords, sign-in warnings); their layout is the platform's renderEmail. Each is
 * written in `lng`: the recipient account's language (users.language), or for the sign-up code (no account yet)
 * the request's (docs/decisions/064). The texts are api/locales/<lng>/emails.json's `identity`; SUBJECTS are
 * the English subjects, as the API always wrote them.
 */

export const SUBJECTS = {
  signupCode: "Your verification code",
  loginCode: "Your sign-in code",
  resetCode: "Your password reset code",
  alreadyRegistered: "You already have an account",
  passwordChanged: "Your password was changed",
  passwordSet: "Your password was set",
  setPasswordLink: "Set your account password",
  deletionCode: "Your account deletion code",
  secondFactorFailures: "Failed two-factor sign-in attempts on your account",
  twoFactorCode: "Your code to turn on two-factor authentication",
  emailChangeAuthCode: "Your code to change your email address",
  emailChangeCode: "Confirm your new email address",
  emailChangeTaken: "This email address already has an account",
  emailChanged: "Your email address was changed",
  newSignIn: "New sign-in to your account",
  twoFactorOn: "Two-factor authentication was turned on",
  twoFactorOff: "Two-factor authentication was turned off",
  recoveryCodeUsed: "Two-factor recovery used on your account",
  cancelCode: "Your code to cancel your subscription",
  welcome: "Welcome to VPN: your account is ready",
  accountDeleted: "Your VPN account was deleted",
  passkeyCode: "Your code to add a passkey",
  passkeyAdded: "A passkey was added to your account",
} as const;

type Subject = keyof typeof SUBJECTS;

/** The identity texts of a language: `t("loginCode.body")` is emails:identity.loginCode.body. */
function identityTexts(lng: Language) {
  const translate = translatorFor(lng);
  return {
    t: (key: string, vars?: Parameters<Translate>[1]) => translate(`emails:identity.${key}` as MessageKey, vars),
    subject: (key: Subject) => translate(`emails:identity.subjects.${key}` as MessageKey),
  };
}

/** A code email: the code, what it is for, and what to do if it was not asked for. */
function codeEmail(to: string, code: string, lng: Language, subject: Subject, body: string, ignore: string): Mail {
  const { t, subject: subjectOf } = identityTexts(lng);
  return renderEmail(to, subjectOf(subject), { lng, code, paragraphs: [{ text: t(body) }, { text: t(ignore) }] });
}

/** The sign-up code; `atCheckout` when the visitor verifies the email in the checkout, so the email says where to enter it. */
export function signupCodeEmail(to: string, code: string, opts: { atCheckout?: boolean }, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  const where = t(opts.atCheckout ? "signupCode.atCheckout" : "signupCode.onSignUpPage");
  return renderEmail(to, subject("signupCode"), {
    lng,
    code,
    paragraphs: [{ text: t("signupCode.body", { where }) }, { text: t("signupCode.ignore") }],
  });
}

export function loginCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "loginCode", "loginCode.body", "loginCode.ignore");
}

/** The code that confirms deleting an account without a password. */
export function deletionCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "deletionCode", "deletionCode.body", "deletionCode.ignore");
}

export function twoFactorCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "twoFactorCode", "twoFactorCode.body", "common.someoneSignedIn");
}

/** The code of /cancel: turning auto-renewal off without signing in (docs/decisions/038). */
export function cancelCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "cancelCode", "cancelCode.body", "common.ignoreNothingChanged");
}

export function resetCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "resetCode", "resetCode.body", "resetCode.ignore");
}

/** Sent instead of a sign-up code when the email already has an account (no code in it). */
export function alreadyRegisteredEmail(to: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("alreadyRegistered"), {
    lng,
    paragraphs: [
      { text: t("alreadyRegistered.body") },
      { text: t("common.signInHere"), link: `${publicUrl}/login` },
      { text: t("common.forgotReset"), link: `${publicUrl}/forget-password` },
      { text: t("common.notYouIgnore") },
    ],
  });
}

export function passwordChangedEmail(to: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("passwordChanged"), {
    lng,
    paragraphs: [{ text: t("passwordChanged.body") }, { text: t("passwordChanged.notYou"), link: `${publicUrl}/forget-password` }],
  });
}

const FIRST_FACTORS = ["password", "code", "google", "apple"] as const;

/**
 * Sent when a sign-in passed the first step (password, emailed code, Google or Apple) and then got
 * several wrong two-factor codes in a row: whoever it was has that first factor (docs/decisions/017).
 */
export function secondFactorFailuresEmail(
  to: string,
  opts: { failures: number; firstFactor: (typeof FIRST_FACTORS)[number]; at: Date; publicUrl: string },
  lng: Language,
): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("secondFactorFailures"), {
    lng,
    paragraphs: [
      {
        text: t("secondFactorFailures.body", {
          firstFactor: t(`secondFactorFailures.firstFactor.${opts.firstFactor}`),
          count: opts.failures,
          at: formatDateTimeIn(lng, opts.at),
        }),
      },
      { text: t("secondFactorFailures.notLetIn") },
      { text: t(`secondFactorFailures.advice.${opts.firstFactor}`), link: `${opts.publicUrl}/forget-password` },
      { text: t("common.itWasYouIgnore") },
    ],
  });
}

/**
 * After an account is made in the checkout (issue 33): the visitor never saw the sign-up page, so
 * this says that an account now exists and how to come back to it.
 */
export function welcomeEmail(to: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("welcome"), {
    lng,
    paragraphs: [
      { text: t("welcome.made", { email: to }) },
      { text: t("welcome.signIn"), link: `${publicUrl}/login` },
      { text: t("welcome.forgot"), link: `${publicUrl}/forget-password` },
      { text: t("welcome.account") },
      { text: t("welcome.help"), link: `${publicUrl}/help` },
    ],
  });
}

export function passwordSetEmail(to: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("passwordSet"), {
    lng,
    paragraphs: [{ text: t("passwordSet.body") }, { text: t("passwordSet.notYou"), link: `${publicUrl}/forget-password` }],
  });
}

export function setPasswordLinkEmail(to: string, link: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("setPasswordLink"), {
    lng,
    paragraphs: [{ text: t("setPasswordLink.body"), link }, { text: t("common.notAskedIgnore") }],
  });
}

/** To the current address of an account without a password: the code that lets it start an email change. */
export function emailChangeAuthCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "emailChangeAuthCode", "emailChangeAuthCode.body", "common.someoneSignedIn");
}

/** To the new address of an email change: the code that confirms it. */
export function emailChangeCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "emailChangeCode", "emailChangeCode.body", "emailChangeCode.ignore");
}

/** Sent instead of the code when the new address already has an account (no code in it). */
export function emailChangeTakenEmail(to: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("emailChangeTaken"), {
    lng,
    paragraphs: [
      { text: t("emailChangeTaken.body") },
      { text: t("emailChangeTaken.signIn"), link: `${publicUrl}/login` },
      { text: t("common.notYouIgnore") },
    ],
  });
}

/** To the previous address after an email change: the 7-day link that puts it back. */
export function emailChangedEmail(to: string, revertLink: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("emailChanged"), {
    lng,
    paragraphs: [{ text: t("emailChanged.body") }, { text: t("common.youIgnore") }, { text: t("emailChanged.revert"), link: revertLink }],
  });
}

/** Where a security email says a change came from: its time, browser and system, shortened network. */
export interface EmailOrigin {
  at: Date;
  /** 'Chrome 131 on Windows 10', or null when the User-Agent says nothing useful. */
  browser: string | null;
  /** The address shortened to its /24 or /48 (issue 22), or null. */
  network: string | null;
}

function originLines(origin: EmailOrigin, lng: Language): EmailParagraph[] {
  const t = translatorFor(lng);
  const unknown = t("emails:layout.unknown");
  return [
    { text: t("emails:identity.origin.time", { at: formatDateTimeIn(lng, origin.at) }) },
    { text: t("emails:identity.origin.browser", { browser: origin.browser ?? unknown }) },
    { text: t("emails:identity.origin.network", { network: origin.network ?? unknown }) },
  ];
}

/**
 * The new sign-in alert (issue 22, docs/decisions/035): the account signed in from a browser or app it
 * had not used before. `secureLink` sets a new password and signs out every session (a reset token).
 */
export function newSignInEmail(to: string, origin: EmailOrigin, secureLink: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("newSignIn"), {
    lng,
    paragraphs: [
      { text: t("newSignIn.body") },
      ...originLines(origin, lng),
      { text: t("common.youIgnore") },
      { text: t("newSignIn.notYou"), link: secureLink },
      { text: t("newSignIn.turnOff"), link: `${publicUrl}/account/security` },
    ],
  });
}

export function twoFactorOnEmail(to: string, origin: EmailOrigin, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("twoFactorOn"), {
    lng,
    paragraphs: [
      { text: t("twoFactorOn.body") },
      ...originLines(origin, lng),
      { text: t("twoFactorOn.notYou"), link: `${publicUrl}/forget-password` },
    ],
  });
}

export function twoFactorOffEmail(to: string, origin: EmailOrigin, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("twoFactorOff"), {
    lng,
    paragraphs: [
      { text: t("twoFactorOff.body") },
      ...originLines(origin, lng),
      { text: t("twoFactorOff.notYou"), link: `${publicUrl}/forget-password` },
    ],
  });
}

export function recoveryCodeUsedEmail(to: string, origin: EmailOrigin, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("recoveryCodeUsed"), {
    lng,
    paragraphs: [
      { text: t("recoveryCodeUsed.body") },
      ...originLines(origin, lng),
      { text: t("recoveryCodeUsed.notYou"), link: `${publicUrl}/forget-password` },
    ],
  });
}

/**
 * After an account was deleted (docs/decisions/015), to the address it had: what went, what is kept,
 * and that nothing is charged again. Sent once the deletion has committed.
 */
export function accountDeletedEmail(to: string, origin: EmailOrigin, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("accountDeleted"), {
    lng,
    paragraphs: [
      { text: t("accountDeleted.body") },
      ...originLines(origin, lng),
      { text: t("accountDeleted.deleted") },
      { text: t("accountDeleted.kept") },
      { text: t("accountDeleted.noCharge") },
      { text: t("accountDeleted.newAccount"), link: `${publicUrl}/login?tab=signup` },
      { text: t("accountDeleted.contact"), link: `${publicUrl}/help#contact` },
    ],
  });
}

/** The code that confirms adding a passkey (issue 30). */
export function passkeyCodeEmail(to: string, code: string, lng: Language): Mail {
  return codeEmail(to, code, lng, "passkeyCode", "passkeyCode.body", "common.someoneSignedIn");
}

export function passkeyAddedEmail(to: string, name: string, publicUrl: string, lng: Language): Mail {
  const { t, subject } = identityTexts(lng);
  return renderEmail(to, subject("passkeyAdded"), {
    lng,
    paragraphs: [{ text: t("passkeyAdded.body", { name }) }, { text: t("passkeyAdded.notYou"), link: `${publicUrl}/account/security` }],
  });
}
