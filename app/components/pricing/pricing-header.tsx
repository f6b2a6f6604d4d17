import { Link, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { loginUrlFor } from "~/utils/safe-redirect";

// Query parameters of the no-JavaScript plan chooser: coming back after sign-in should not resubmit it.
const CHOOSER_PARAMS = ["plan", "buy"];

/**
 * The pricing page's header's own part (commerce §2), beside the logo and the public navigation (PublicShell):
 * 'My Account' when signed in, 'Log in' with oldurl otherwise.
 */
export function PricingAccount({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation("pricing");
  const location = useLocation();
  const search = new URLSearchParams(location.search);
  for (const name of CHOOSER_PARAMS) search.delete(name);
  const query = search.toString();
  const loginHref = loginUrlFor(`${location.pathname}${query ? `?${query}` : ""}`);

  return signedIn ? (
    <Link to="/" className="button">
      {t("pricing.header.myAccount")}
    </Link>
  ) : (
    <p className="pricing-header__login">
      <span>{t("pricing.header.haveAccount")}</span>{" "}
      <Link to={loginHref} className="button">
        {t("pricing.header.logIn")}
      </Link>
    </p>
  );
}
