import { type EmailParagraph, renderEmail } from "../platform/email-template";
import { formatDateTime } from "../platform/dates";
import type { Mail } from "../platform/mailer";

/* The identity emails (codes, passwords, sign-in warnings); their layout is the platform's renderEmail. */

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
} as const;

/** The sign-up code; `atCheckout` when the visitor verifies the email in the checkout, so the email says where to enter it. */
export function signupCodeEmail(to: string, code: string, opts: { atCheckout?: boolean } = {}): Mail {
  const where = opts.atCheckout ? "in the checkout's 'Verify Your Email' window" : "on the sign-up page";
  return renderEmail(to, SUBJECTS.signupCode, {
    code,
    paragraphs: [
      { text: `This is your verification code. Enter it ${where} to confirm your email address. It expires in five minutes.` },
      { text: "If you did not try to create an account, you can ignore this email." },
    ],
  });
}

export function loginCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.loginCode, {
    code,
    paragraphs: [
      { text: "This is your sign-in code. Enter it on the sign-in page. It expires in five minutes." },
      { text: "If you did not ask to sign in, you can ignore this email: nobody can sign in without this code." },
    ],
  });
}

/** The code that confirms deleting an account without a password. */
export function deletionCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.deletionCode, {
    code,
    paragraphs: [
      { text: "This is your code to delete your account. Enter it on the Delete account page. It expires in five minutes." },
      { text: "If you did not ask to delete your account, you can ignore this email: nothing has been deleted." },
    ],
  });
}

export function twoFactorCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.twoFactorCode, {
    code,
    paragraphs: [
      { text: "This is your code to turn on two-factor authentication. Enter it on the Two-factor authentication page. It expires in five minutes." },
      { text: "If you did not ask for it, someone may be signed in to your account: sign out all devices from your account page." },
    ],
  });
}

/** The code of /cancel: turning auto-renewal off without signing in (docs/decisions/038). */
export function cancelCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.cancelCode, {
    code,
    paragraphs: [
      { text: "This is your code to cancel your subscription. Enter it on the Cancel your subscription page. It expires in five minutes." },
      { text: "If you did not ask for it, you can ignore this email: nothing has changed." },
    ],
  });
}

export function resetCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.resetCode, {
    code,
    paragraphs: [
      { text: "This is your password reset code. Enter it to choose a new password. It expires in five minutes." },
      { text: "If you did not ask to reset your password, you can ignore this email: your password has not changed." },
    ],
  });
}

/** Sent instead of a sign-up code when the email already has an account (no code in it). */
export function alreadyRegisteredEmail(to: string, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.alreadyRegistered, {
    paragraphs: [
      { text: "Someone, probably you, tried to create an account with this email address, but you already have one." },
      { text: "Sign in here:", link: `${publicUrl}/login` },
      { text: "Forgot your password? Reset it here:", link: `${publicUrl}/forget-password` },
      { text: "If this was not you, you can ignore this email." },
    ],
  });
}

export function passwordChangedEmail(to: string, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.passwordChanged, {
    paragraphs: [
      { text: "The password of your account was just changed, and your other sessions were signed out." },
      { text: "If you did not do this, reset your password now and check your account:", link: `${publicUrl}/forget-password` },
    ],
  });
}

const FIRST_FACTORS = {
  password: "your password",
  code: "a sign-in code sent to this email address",
  google: "your Google account",
  apple: "your Apple account",
} as const;

/**
 * Sent when a sign-in passed the first step (password, emailed code, Google or Apple) and then got
 * several wrong two-factor codes in a row: whoever it was has that first factor (docs/decisions/017).
 */
export function secondFactorFailuresEmail(
  to: string,
  opts: { failures: number; firstFactor: keyof typeof FIRST_FACTORS; at: Date; publicUrl: string },
): Mail {
  const advice = {
    password: "If this was not you, someone knows your password. Change your password now:",
    code: "If this was not you, someone can read your email. Secure your email account, then change your password:",
    google: "If this was not you, someone can sign in to your Google account. Secure it, then change your password here:",
    apple: "If this was not you, someone can sign in to your Apple account. Secure it, then change your password here:",
  }[opts.firstFactor];
  return renderEmail(to, SUBJECTS.secondFactorFailures, {
    paragraphs: [
      {
        text: `Someone signed in to your account with ${FIRST_FACTORS[opts.firstFactor]}, then entered a wrong two-factor authentication code ${opts.failures} times in a row, most recently on ${formatDateTime(opts.at)}.`,
      },
      { text: "They were not let in: signing in also needs a code from your authenticator app or a recovery code." },
      { text: advice, link: `${opts.publicUrl}/forget-password` },
      { text: "If it was you, you can ignore this email." },
    ],
  });
}

/**
 * After an account is made in the checkout (issue 33): the visitor never saw the sign-up page, so
 * this says that an account now exists and how to come back to it.
 */
export function welcomeEmail(to: string, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.welcome, {
    paragraphs: [
      { text: `Your VPN account was made with this email address (${to}) when you verified it in the checkout.` },
      { text: "To sign in, use this email address and the password you chose in the checkout, or ask for a sign-in code by email:", link: `${publicUrl}/login` },
      { text: "Forgot the password? Set a new one here:", link: `${publicUrl}/forget-password` },
      { text: "Your plan, payments and devices are on your account page once you are signed in." },
      { text: "Questions? Our Help page answers the common ones and takes messages:", link: `${publicUrl}/help` },
    ],
  });
}

export function passwordSetEmail(to: string, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.passwordSet, {
    paragraphs: [
      { text: "A password was just set for your account. You can now sign in with your email and password." },
      { text: "If you did not do this, reset your password now:", link: `${publicUrl}/forget-password` },
    ],
  });
}

export function setPasswordLinkEmail(to: string, link: string): Mail {
  return renderEmail(to, SUBJECTS.setPasswordLink, {
    paragraphs: [
      { text: "Choose a password for your account with this link. It works once, for 24 hours:", link },
      { text: "If you did not ask for this, you can ignore this email." },
    ],
  });
}

/** To the current address of an account without a password: the code that lets it start an email change. */
export function emailChangeAuthCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.emailChangeAuthCode, {
    code,
    paragraphs: [
      { text: "This is your code to change the email address of your account. Enter it in the Change email dialog. It expires in five minutes." },
      { text: "If you did not ask for it, someone may be signed in to your account: sign out all devices from your account page." },
    ],
  });
}

/** To the new address of an email change: the code that confirms it. */
export function emailChangeCodeEmail(to: string, code: string): Mail {
  return renderEmail(to, SUBJECTS.emailChangeCode, {
    code,
    paragraphs: [
      { text: "This is your code to make this the email address of your account. Enter it in the Change email dialog. It expires in five minutes." },
      { text: "If you did not ask for it, you can ignore this email: nothing changes without this code." },
    ],
  });
}

/** Sent instead of the code when the new address already has an account (no code in it). */
export function emailChangeTakenEmail(to: string, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.emailChangeTaken, {
    paragraphs: [
      { text: "Someone, probably you, asked to move another account to this email address, but this address already has an account. No code was sent and nothing was changed." },
      { text: "Sign in to that account here:", link: `${publicUrl}/login` },
      { text: "If this was not you, you can ignore this email." },
    ],
  });
}

/** To the previous address after an email change: the 7-day link that puts it back. */
export function emailChangedEmail(to: string, revertLink: string): Mail {
  return renderEmail(to, SUBJECTS.emailChanged, {
    paragraphs: [
      { text: "The email address of your account was changed. From now on we write to the new address, and you sign in with it." },
      { text: "If this was you, you can ignore this email." },
      {
        text: "If it was not you, open this link within seven days: it puts this address back and signs out every device.",
        link: revertLink,
      },
    ],
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

function originLines(origin: EmailOrigin): EmailParagraph[] {
  return [
    { text: `Time: ${formatDateTime(origin.at)}` },
    { text: `Browser and system: ${origin.browser ?? "Unknown"}` },
    { text: `Network: ${origin.network ?? "Unknown"}` },
  ];
}

/**
 * The new sign-in alert (issue 22, docs/decisions/035): the account signed in from a browser or app it
 * had not used before. `secureLink` sets a new password and signs out every session (a reset token).
 */
export function newSignInEmail(to: string, origin: EmailOrigin, secureLink: string, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.newSignIn, {
    paragraphs: [
      { text: "Your account was just signed in to from a browser or app it has not used before." },
      ...originLines(origin),
      { text: "If this was you, you can ignore this email." },
      { text: "If it was not you, set a new password now with this link; it also signs out every session of your account (it works once, for 24 hours):", link: secureLink },
      { text: "You can turn these emails off on your Security page:", link: `${publicUrl}/account/security` },
    ],
  });
}

export function twoFactorOnEmail(to: string, origin: EmailOrigin, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.twoFactorOn, {
    paragraphs: [
      { text: "Two-factor authentication was turned on for your account: signing in now also needs a code from your authenticator app." },
      ...originLines(origin),
      { text: "If this was not you, someone is signed in to your account. Reset your password now:", link: `${publicUrl}/forget-password` },
    ],
  });
}

export function twoFactorOffEmail(to: string, origin: EmailOrigin, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.twoFactorOff, {
    paragraphs: [
      { text: "Two-factor authentication was turned off for your account: signing in no longer needs a code from your authenticator app." },
      ...originLines(origin),
      { text: "If this was not you, reset your password now, then turn two-factor authentication on again:", link: `${publicUrl}/forget-password` },
    ],
  });
}

export function recoveryCodeUsedEmail(to: string, origin: EmailOrigin, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.recoveryCodeUsed, {
    paragraphs: [
      { text: "One of your two-factor recovery codes was just used. Each code works once." },
      ...originLines(origin),
      { text: "If this was not you, someone has your password and a recovery code. Reset your password now:", link: `${publicUrl}/forget-password` },
    ],
  });
}

/**
 * After an account was deleted (docs/decisions/015), to the address it had: what went, what is kept,
 * and that nothing is charged again. Sent once the deletion has committed.
 */
export function accountDeletedEmail(to: string, origin: EmailOrigin, publicUrl: string): Mail {
  return renderEmail(to, SUBJECTS.accountDeleted, {
    paragraphs: [
      { text: "Your VPN account with this email address was deleted, as you asked." },
      ...originLines(origin),
      {
        text: "Deleted: your name, email address and password, your two-factor settings, passkeys and Google or Apple connections, your saved cards and your account's activity. Every device was signed out.",
      },
      {
        text: "Kept: the records of your payments (amounts, dates and plans) that the law requires us to keep. They no longer hold your name or email address.",
      },
      { text: "Any auto-renewal was cancelled: nothing will be charged again." },
      { text: "You can create a new account with this email address at any time:", link: `${publicUrl}/login?tab=signup` },
      { text: "If you did not delete your account, contact us:", link: `${publicUrl}/help#contact` },
    ],
  });
}
