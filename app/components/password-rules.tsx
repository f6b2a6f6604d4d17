import { useTranslation } from "react-i18next";

/**
 * The password rules, shown before the first try wherever a password is set (issue 21): identity §5's
 * (at least 8 characters; Password and Confirm Password equal), worded apart from its error messages
 * so that a message next to the field is not read twice. The Password input's aria-describedby names it.
 */
export function PasswordRules({ id }: { id: string }) {
  const { t } = useTranslation("auth");
  return (
    <div className="password-rules" id={id}>
      <p className="password-rules__title">{t("auth.passwordRules.title")}</p>
      <ul>
        <li>{t("auth.passwordRules.length")}</li>
        <li>{t("auth.passwordRules.same")}</li>
      </ul>
    </div>
  );
}
