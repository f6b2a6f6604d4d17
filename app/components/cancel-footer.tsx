import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";

/** Billing's auto-renewal control: where a signed-in customer ends a renewal (issue 33). */
export const BILLING_AUTO_RENEWAL = "/billing#auto-renewal";

/** Where 'Cancel subscription' leads: Billing's control when signed in, else the steps without signing in. */
export function cancelPath(signedIn: boolean): string {
  return signedIn ? BILLING_AUTO_RENEWAL : "/cancel";
}

/**
 * 'Cancel subscription' on every page (issue 22, §312k BGB): ending a renewal is a link away, signed in or
 * not. The public shell lists it among its footer links; the sign-in pages and the signed-in layout have
 * this small footer with just that link. Signed in, it goes to Billing's auto-renewal control.
 */
export function CancelFooter({ className = "page-footer", signedIn = false }: { className?: string; signedIn?: boolean }) {
  const { t } = useTranslation("billing");
  return (
    <footer className={className}>
      <nav aria-label={t("billing.footer.label")}>
        <ul>
          <li>
            <Link to={cancelPath(signedIn)}>{t("billing.footer.cancelSubscription")}</Link>
          </li>
        </ul>
      </nav>
    </footer>
  );
}
