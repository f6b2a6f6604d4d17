import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { Field } from "~/components/field";
import { StaticPage } from "~/components/static-page";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import type { SupportMessageFields } from "~/schemas/support";
import { useFirstRefusedField, useFormOptions } from "~/utils/client-validation";
import type { FormFailure } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { CONTACT_FORM_ID, PRIVATE_CACHE, PUBLIC_CACHE, SENT_MESSAGE, SENT_WITHOUT_COPY } from "./contact";
import { loadHelp, sendHelpMessage } from "./help.server";

// /help (issue 21): how to get the apps running, the renewal and refund rules in plain words, and a
// contact form that works without JavaScript. Public, signed in or out; signed in, the form has the
// account's email, so the page is then private (never kept by a shared cache).

export const meta: MetaFunction = (args) => pageMeta(args, "pages.meta.help.title", "pages.meta.help.description");

export const headers: HeadersFunction = ({ loaderHeaders, actionHeaders }) => {
  // Public only as the loader said (anonymous), and never when this answer sets a cookie or follows a post.
  const shareable =
    loaderHeaders.get("Cache-Control") === PUBLIC_CACHE && !loaderHeaders.has("Set-Cookie") && !actionHeaders.has("Cache-Control");
  return { "Cache-Control": shareable ? PUBLIC_CACHE : PRIVATE_CACHE, Vary: "Cookie" };
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  return loadHelp(request, context);
}

export async function action({ request, context }: ActionFunctionArgs) {
  return sendHelpMessage(request, context);
}

export default function HelpPage() {
  const { signedIn, downloads } = useLoaderData<typeof loader>();
  const { t } = useTranslation("pages");
  const strong = <strong />;
  return (
    <StaticPage title={t("pages.help.title")}>
      <nav aria-label={t("pages.help.toc.label")}>
        <ul>
          <li>
            <a href="#apps">{t("pages.help.apps.title")}</a>
          </li>
          <li>
            <a href="#renewals-and-refunds">{t("pages.help.renewals.title")}</a>
          </li>
          <li>
            <a href="#contact">{t("pages.help.contact.title")}</a>
          </li>
        </ul>
      </nav>

      <section aria-labelledby="apps">
        <h2 id="apps">{t("pages.help.apps.title")}</h2>
        <ol>
          <li>
            <Trans t={t} i18nKey="pages.help.apps.plan" components={{ strong, pagelink: <Link to="/pricing" /> }} />{" "}
            {signedIn ? null : <Link to="/login">{t("pages.help.apps.signIn")}</Link>}
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.apps.download" components={{ strong }} />
            <ul>
              {downloads.map((item) => (
                <li key={item.name}>
                  {item.href ? <a href={item.href}>{t(item.name)}</a> : t("pages.help.apps.download.unavailable", { name: t(item.name) })}
                </li>
              ))}
            </ul>
          </li>
          <li>
            <Trans
              t={t}
              i18nKey="pages.help.apps.signInToApp"
              components={{ strong, codelink: <Link to="/get-code" />, resetlink: <Link to="/forget-password" /> }}
            />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.apps.connect" components={{ strong }} />
          </li>
        </ol>
      </section>

      <section aria-labelledby="renewals-and-refunds">
        <h2 id="renewals-and-refunds">{t("pages.help.renewals.title")}</h2>
        <ul>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.automatic" components={{ strong }} />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.stop" components={{ strong }} />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.fiveYear" components={{ strong }} />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.crypto" components={{ strong }} />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.guarantee" components={{ strong }} />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.cryptoShort" components={{ strong, pagelink: <RefundRequestLink /> }} />
          </li>
          <li>
            <Trans t={t} i18nKey="pages.help.renewals.failed" components={{ strong }} />
          </li>
        </ul>
        <p>
          <Trans t={t} i18nKey="pages.help.renewals.terms" components={{ pagelink: <Link to="/terms" /> }} />
        </p>
      </section>

      <ContactSection />
    </StaticPage>
  );
}

/** A plain link (Trans gives its words): it loads /help again with the refund topic's prefill, also with JavaScript. */
function RefundRequestLink({ children }: { children?: ReactNode }) {
  return <a href="/help?topic=refund#contact">{children}</a>;
}

function ContactSection() {
  const { formOn, sent, prefill } = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const serverError = idle && actionData?.form === CONTACT_FORM_ID ? actionData.serverError : null;
  const [form, fields] = useForm<SupportMessageFields>({
    ...useFormOptions<SupportMessageFields>(CONTACT_FORM_ID, () => import("~/schemas/support").then((module) => module.SupportMessageSchema)),
    defaultValue: { email: prefill.email, message: prefill.message, topic: prefill.topic },
  });
  const refused = useFirstRefusedField(CONTACT_FORM_ID);
  const { t } = useTranslation("pages");
  const formError = serverError ?? form.errors?.[0];

  return (
    <section aria-labelledby="contact">
      <h2 id="contact">{t("pages.help.contact.title")}</h2>
      {!formOn ? (
        <p className="notice">{t("pages.help.contact.unavailable")}</p>
      ) : sent ? (
        <>
          <p className="notice" role="status">
            {t(sent === "copied" ? SENT_MESSAGE : SENT_WITHOUT_COPY)}
          </p>
          <p>
            <Link to="/help#contact">{t("pages.help.contact.another")}</Link>
          </p>
        </>
      ) : (
        <>
          <Toasts toasts={serverError ? [{ type: "error", message: serverError }] : []} />
          <p>{t("pages.help.contact.intro")}</p>
          <Form method="post" {...getFormProps(form)} noValidate className="help-contact">
            <p className="form-error" id={form.errorId} role="alert">
              {/* A catalogue key, or the API's message in the page's language. */}
              {formError ? t(formError) : ""}
            </p>
            <input type="hidden" name="intent" value="send-message" />
            <input type="hidden" name="topic" value={prefill.topic} />
            <Field label={<label htmlFor={fields.email.id}>{t("pages.help.contact.email")}</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
              <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus={refused === fields.email.name} />
            </Field>
            <Field label={<label htmlFor={fields.message.id}>{t("pages.help.contact.message")}</label>} errorId={fields.message.errorId} errors={fields.message.errors}>
              <textarea {...getTextareaProps(fields.message)} rows={8} maxLength={5000} autoFocus={refused === fields.message.name} />
            </Field>
            <div className="form-actions">
              <SubmitButton intent="send-message" className="button button--primary">
                {t("pages.help.contact.send")}
              </SubmitButton>
            </div>
          </Form>
        </>
      )}
    </section>
  );
}
