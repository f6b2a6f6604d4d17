import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useCountdown } from "./countdown";

/**
 * 'Resend Code', enabled only when its countdown is 0 and otherwise showing the seconds left. Its own
 * form, so resending never trips the code field's validation. The server enforces the 30 s rule
 * whatever the page shows.
 */
export function ResendForm({ secondsLeft, sentAt, intent = "resend" }: { secondsLeft: number; sentAt: number; intent?: string }) {
  const { t } = useTranslation("auth");
  const left = useCountdown(secondsLeft, sentAt);
  return (
    <Form method="post" className="resend-form">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className="button button--link" disabled={left > 0}>
        {t("auth.code.resend")}
        {left > 0 ? <span aria-hidden="true"> ({left}s)</span> : null}
      </button>
      {left > 0 ? (
        <noscript>
          <span className="muted"> {t("auth.code.reloadToResend", { count: left })}</span>
        </noscript>
      ) : null}
    </Form>
  );
}
