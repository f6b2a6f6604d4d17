import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useFormatters } from "~/i18n/use-formatters";

// An account's passkeys, each with 'Remove' (a plain form post: it works without JavaScript). The
// security page posts to /account/passkeys/remove; the page after a password reset (issue 30) posts
// to itself with its review token kept on the server.

export interface PasskeyListItem {
  id: string;
  name: string;
  /** ISO 8601: the list writes it out in the page's language ('DD MMMM, Y' in English). */
  createdAt: string;
  /** 'YYYY-MM-DD HH:mm' (UTC), or null when it never signed in. */
  lastUsedAt: string | null;
}

export function PasskeyList({
  passkeys,
  action,
  fields = {},
}: {
  passkeys: PasskeyListItem[];
  /** Where 'Remove' posts (with passkey_id and `fields`). */
  action: string;
  fields?: Record<string, string>;
}) {
  const { t } = useTranslation("account");
  const { longDate } = useFormatters();
  return (
    <ul className="passkey-list" aria-label={t("account.passkeys.list.label")}>
      {passkeys.map((passkey) => (
        <li key={passkey.id} className="passkey-item">
          <div>
            <p className="passkey-item__name">{passkey.name}</p>
            <p className="passkey-item__dates muted">
              {t("account.passkeys.list.added", { date: longDate(passkey.createdAt) })} ·{" "}
              {passkey.lastUsedAt ? t("account.passkeys.list.lastUsed", { time: passkey.lastUsedAt }) : t("account.passkeys.list.neverUsed")}
            </p>
          </div>
          <Form method="post" action={action}>
            {Object.entries(fields).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <input type="hidden" name="passkey_id" value={passkey.id} />
            {/* Its name says which passkey: the list has one 'Remove' per passkey. */}
            <button type="submit" className="button" aria-label={t("account.passkeys.list.removeLabel", { name: passkey.name })}>
              {t("account.passkeys.list.remove")}
            </button>
          </Form>
        </li>
      ))}
    </ul>
  );
}
