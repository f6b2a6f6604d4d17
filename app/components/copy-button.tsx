import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";

/**
 * 'Copy' for a value on the page (the two-factor setup key: a phone cannot scan its own screen, so the key
 * is pasted into the authenticator app). It needs the Clipboard API, so it appears only once JavaScript
 * runs and the browser has one; without it the value stays selectable text. Says 'Copied' for a moment.
 */
export function CopyButton({ value, label }: { value: string; label?: string }) {
  const { t } = useTranslation("account");
  const [available, setAvailable] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    setAvailable(typeof navigator !== "undefined" && Boolean(navigator.clipboard?.writeText));
  }, []);
  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), 2000);
    return () => window.clearTimeout(timer);
  }, [copied]);
  if (!available) return null;
  return (
    <>
      <button
        type="button"
        className="button"
        onClick={() => {
          void navigator.clipboard.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {label ?? t("account.copy.button")}
      </button>
      <span role="status" className="copy-status">
        {copied ? t("account.copy.copied") : ""}
      </span>
    </>
  );
}
