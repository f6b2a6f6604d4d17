import { Form, useSubmit } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { ModalDialog } from "./modal-dialog";

/**
 * A dialog that is a step of a server-kept flow (change password, change email): its × is a plain form
 * posting `closeIntent`, so it works without JavaScript, and with it Escape posts the same intent.
 * `title` is a catalogue key or a text already translated.
 */
export function FlowDialog({
  id,
  title,
  closeIntent,
  returnFocusTo,
  children,
}: {
  id: string;
  title: string;
  closeIntent: string;
  returnFocusTo: string;
  children: ReactNode;
}) {
  const { t } = useTranslation("auth");
  const submit = useSubmit();
  return (
    <ModalDialog
      labelledBy={`${id}-title`}
      // Escape does what the × does: ends the flow on the server (its code is no longer wanted).
      onCancel={() => submit({ intent: closeIntent }, { method: "post", replace: true, preventScrollReset: true })}
      returnFocusTo={returnFocusTo}
    >
      <header className="dialog-header">
        <h2 id={`${id}-title`}>{t(title)}</h2>
        <Form method="post">
          <input type="hidden" name="intent" value={closeIntent} />
          <button type="submit" className="button button--link" aria-label={t("auth.dialog.close")}>
            ×
          </button>
        </Form>
      </header>
      {children}
    </ModalDialog>
  );
}
