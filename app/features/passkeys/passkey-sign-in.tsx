import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { browserHasWebAuthn, cancelPasskeyRequest, ceremonyError, conditionalMediationAvailable, passkeyAssertion, postJson } from "./passkey-client";

/**
 * /login's 'Sign in with a passkey' (docs/decisions/037). It appears only once JavaScript runs (without
 * it the page is as before). Where the browser offers passkeys in autofill (conditional UI), a request
 * waits on the Email field (autocomplete 'username webauthn') from the start; the button asks at once.
 * A verified passkey signs in without the two-factor step.
 */
export function PasskeySignIn({ oldurl }: { oldurl: string }) {
  const { t } = useTranslation("auth");
  const [available, setAvailable] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  // Once the button is pressed, the autofill request (if it is still being prepared) stands down.
  const pressedRef = useRef(false);
  const oldurlRef = useRef(oldurl);
  oldurlRef.current = oldurl;

  const finish = useCallback(async (challengeId: string, response: unknown) => {
    const answer = await postJson("/passkeys/sign-in", { challengeId, response, oldurl: oldurlRef.current });
    if (answer.ok && typeof answer.data.redirectTo === "string") {
      window.location.assign(answer.data.redirectTo);
      return true;
    }
    setError(String(answer.data.error ?? ""));
    return false;
  }, []);

  const ceremony = useCallback(
    async (autofill: boolean) => {
      const options = await postJson("/passkeys/sign-in-options", undefined, "GET");
      if (!options.ok) {
        if (!autofill) setError(String(options.data.error ?? ""));
        return;
      }
      let response: unknown;
      try {
        const assertion = await passkeyAssertion();
        if (autofill && pressedRef.current) return;
        response = await assertion(options.data.options as PublicKeyCredentialRequestOptionsJSON, autofill);
      } catch (failure) {
        const message = ceremonyError(failure);
        if (message && !autofill) setError(message);
        return;
      }
      await finish(String(options.data.challengeId), response);
    },
    [finish],
  );

  useEffect(() => {
    if (!browserHasWebAuthn()) return;
    setAvailable(true);
    let cancelled = false;
    let started = false;
    // The browser says itself whether it offers passkeys in autofill; only then does a request start
    // before the button is pressed (conditional UI needs it waiting from the start).
    conditionalMediationAvailable()
      .then(async (autofill) => {
        if (cancelled || !autofill) return;
        started = true;
        await ceremony(true);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      if (started) cancelPasskeyRequest();
    };
  }, [ceremony]);

  if (!available) return null;
  return (
    <div className="passkey-sign-in">
      <button
        type="button"
        className="button button--social"
        disabled={busy}
        onClick={async () => {
          pressedRef.current = true;
          setBusy(true);
          setError("");
          try {
            await ceremony(false);
          } finally {
            setBusy(false);
          }
        }}
      >
        {t("auth.passkey.signIn")}
      </button>
      <p className="form-error" role="alert">
        {/* A catalogue key (the portal's own messages) or a text the API gave in the page's language. */}
        {error ? t(error) : ""}
      </p>
    </div>
  );
}
