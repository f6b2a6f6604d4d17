import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";

export function Logo() {
  const { t } = useTranslation();
  return (
    <Link to="/" className="logo" aria-label={t("common.logo.home")}>
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
        <path d="M16 2 4 7v8c0 7.4 5.1 13.6 12 15 6.9-1.4 12-7.6 12-15V7L16 2Z" fill="currentColor" />
        <path d="m11 16 3.5 3.5L21.5 12" stroke="#fff" strokeWidth="2.5" fill="none" strokeLinecap="round" />
      </svg>
      <span>VPN</span>
    </Link>
  );
}
