/*
 * The identity sandbox's own HTML: the sign-in page (instead of oidc-provider's development
 * screens), the error page, and a tiny stylesheet. Plain server-rendered HTML: no scripts, no inline
 * styles, so it works without JavaScript and under a strict Content-Security-Policy.
 */

import { escapeHtml, sandboxPage } from "../../platform/html";

export { escapeHtml };

export type SandboxKind = "google" | "apple";

export const SIGN_IN_TITLES: Record<SandboxKind, string> = {
  google: "Sign in to Google (sandbox)",
  apple: "Sign in with Apple (sandbox)",
};

const BRANDS: Record<SandboxKind, string> = { google: "Google", apple: "Apple" };

export const INVALID_EMAIL_MESSAGE = "Please enter a valid email address";



function sandboxNotice(kind: SandboxKind): string {
  return `<p class="notice" role="note"><strong>Sandbox:</strong> this is not ${BRANDS[kind]}. It is the development stand-in
that signs you in with any email address you type, without a password. Nothing you enter here leaves this server.</p>`;
}

export interface SignInPageOptions {
  kind: SandboxKind;
  action: string;
  stylesheetHref: string;
  /** The client the person is signing in to (shown as "to continue to …"). */
  clientName: string;
  email: string;
  name: string;
  /** 'I used two-factor': the ID token's amr says ["pwd", "mfa"] instead of ["pwd"]. */
  mfa?: boolean;
  emailError?: string;
}

export function renderSignInPage(o: SignInPageOptions): string {
  const title = SIGN_IN_TITLES[o.kind];
  const invalid = o.emailError !== undefined;
  const emailAttributes = invalid ? ' aria-invalid="true" aria-describedby="email-error"' : "";
  const body = `<h1>${escapeHtml(title)}</h1>
${sandboxNotice(o.kind)}
<p class="client">to continue to <strong>${escapeHtml(o.clientName)}</strong></p>
<form method="post" action="${escapeHtml(o.action)}" novalidate>
<div class="field">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(o.email)}"${emailAttributes}>
${invalid ? `<p class="error" id="email-error">${escapeHtml(o.emailError ?? "")}</p>` : ""}
</div>
<div class="field">
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" maxlength="100" value="${escapeHtml(o.name)}">
</div>
<div class="field checkbox">
<input id="mfa" name="mfa" type="checkbox" value="1"${o.mfa ? " checked" : ""}>
<label for="mfa">I used two-factor</label>
</div>
<div class="actions">
<button type="submit" name="action" value="continue">Continue</button>
<button type="submit" name="action" value="cancel" class="secondary">Cancel</button>
</div>
</form>`;
  return sandboxPage(title, o.stylesheetHref, body);
}

export interface ErrorPageOptions {
  kind: SandboxKind;
  stylesheetHref: string;
  error: string;
  description?: string;
}

export function renderErrorPage(o: ErrorPageOptions): string {
  const title = `Sign-in error (${BRANDS[o.kind]} sandbox)`;
  const body = `<h1>${escapeHtml(title)}</h1>
${sandboxNotice(o.kind)}
<p class="error-code">Error: <code>${escapeHtml(o.error)}</code></p>
${o.description ? `<p class="error-description">${escapeHtml(o.description)}</p>` : ""}
<p>Go back to the site you came from and try signing in again.</p>`;
  return sandboxPage(title, o.stylesheetHref, body);
}

export const SANDBOX_STYLESHEET = `*{box-sizing:border-box}
body{margin:0;padding:2rem 1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f1f3f4;color:#202124}
.card{max-width:28rem;margin:0 auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.2)}
h1{margin:0 0 1rem;font-size:1.5rem;font-weight:500}
.notice{margin:0 0 1rem;padding:.75rem;border:1px solid #f9ab00;border-radius:4px;background:#fef7e0;font-size:.875rem}
.client{margin:0 0 1.5rem;color:#5f6368}
.field{margin-bottom:1rem}
label{display:block;margin-bottom:.25rem;font-weight:500}
.checkbox{display:flex;gap:.5rem;align-items:center}
.checkbox label{margin:0;font-weight:400}
input{width:100%;padding:.625rem .75rem;border:1px solid #80868b;border-radius:4px;font:inherit}
input[type="checkbox"]{width:auto}
input[aria-invalid="true"]{border-color:#d93025}
.error{margin:.25rem 0 0;color:#d93025;font-size:.875rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{padding:.625rem 1.5rem;border:0;border-radius:4px;background:#1a73e8;color:#fff;font:inherit;font-weight:500;cursor:pointer}
button.secondary{background:transparent;color:#1a73e8}
button:focus-visible,input:focus-visible{outline:2px solid #1a73e8;outline-offset:2px}
code{font-size:.9em}
`;
