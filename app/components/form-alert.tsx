import { useLocation, useRouteLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";

/** An error carried to a page's form by a redirect (utils/form-error.server.ts), read by the root loader. */
export type FormErrorFlash = { path: string; form: string; field?: string; message: string };

/**
 * A form-level error at the top of its form (issue 21): it stays in the page until the person acts,
 * where the toast that says the same closes after 5 s. The region is always in the page, so a screen
 * reader announces a message that appears in it.
 */
export function FormAlert({ id, errors }: { id?: string; errors?: string[] | null }) {
  const { t } = useTranslation();
  const message = errors?.[0];
  return (
    <p className="form-error form-alert" id={id} role="alert">
      {/* A catalogue key (the portal's own messages and its schemas') or a text the API gave in the page's language. */}
      {message ? t(message) : ""}
    </p>
  );
}

/** The redirect-carried error for `form` on this page, if there is one. */
export function useFlashFormError(form: string): FormErrorFlash | null {
  const root = useRouteLoaderData<{ formError?: FormErrorFlash | null }>("root");
  const { pathname } = useLocation();
  const flash = root?.formError;
  return flash && flash.form === form && flash.path === pathname ? flash : null;
}

/** The form name of an error about a page as a whole (a button in a list, a link that failed): see PageAlert. */
export const PAGE_ALERT_FORM = "page";

/** A page's own alert region for an error a redirect carried to it that no one form owns (issue 21). */
export function PageAlert() {
  const flash = useFlashFormError(PAGE_ALERT_FORM);
  return <FormAlert errors={flash ? [flash.message] : null} />;
}
