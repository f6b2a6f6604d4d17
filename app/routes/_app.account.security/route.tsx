import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormAlert, useFlashFormError } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import { Toasts, type ToastView } from "~/components/toasts";
import { serviceUnavailable } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";
import { formatUtcDateTime } from "~/utils/dates";
import { translatorOf } from "~/i18n/i18n.server";
import { type FormFailure, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { loadPasskeys, passkeyAction, passkeyAddState } from "./passkeys.server";
import { PasskeysSection } from "./passkeys";

// 'Security' (issue 22, docs/decisions/035): the account's recent security events (20 a page, plain
// 'Newer'/'Older' links), the new sign-in alerts setting (a plain form), links to two-factor and
// connected devices, and the passkeys (./passkeys.tsx: the list, and adding one after the password,
// or emailed code, and the second factor; issue 30).

export const meta: MetaFunction = (args) => pageMeta(args, "account.meta.security.title", "account.meta.security.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const PAGE = "/account/security";
const ALERTS_FORM = "sign-in-alerts";
const MAX_PAGE = 100_000;


/** ?page=N: a whole number from 1; anything else is the first page. */
function pageOf(request: Request): number {
  const raw = new URL(request.url).searchParams.get("page") ?? "";
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.min(Math.max(n, 1), MAX_PAGE);
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { api, user } = await requireUser(request, context);
  const page = pageOf(request);
  const [events, alerts, passkeys, addPasskey] = await Promise.all([
    api.get("/api/account/security-events", { params: { query: { page } } }),
    api.get("/api/account/sign-in-alerts"),
    loadPasskeys(api),
    passkeyAddState(request, api, user),
  ]);
  if (!alerts.ok) throw serviceUnavailable();
  const t = translatorOf(request);
  const notices: ToastView[] = events.ok ? [] : [{ type: "error", message: events.message || "account.security.activity.fetchFailed" }];
  return data(
    {
      page,
      activity: events.ok
        ? {
            hasMore: events.data.has_more,
            events: events.data.events.map((event) => ({
              id: event.id,
              // The API's label is English; the kind names the event in the page's language (the API's label for an unknown kind).
              label: t(`account.security.event.${event.kind}`, { defaultValue: event.label }),
              detail: event.detail,
              at: event.created_at,
              atUtc: formatUtcDateTime(event.created_at),
              browser: event.browser ?? t("account.security.activity.unknown"),
              network: event.network ?? t("account.security.activity.unknown"),
            })),
          }
        : null,
      notices,
      alertsOn: alerts.data.enabled,
      passkeys,
      addPasskey,
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { api, user } = await requireUser(request, context);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");
  const passkeyAnswer = await passkeyAction(intent, { request, formData, api, user });
  if (passkeyAnswer) return passkeyAnswer;
  if (intent === "sign-in-alerts") {
    const enabled = formData.get("sign_in_alerts") === "1" ? 1 : 0;
    const saved = await api.put("/api/account/sign-in-alerts", { body: { enabled } });
    if (!saved.ok) return redirectWithFormError(PAGE, saved.message || "account.security.alerts.saveFailed", { form: ALERTS_FORM });
    return redirectWithSuccess(PAGE, saved.message || (enabled ? "account.security.alerts.savedOn" : "account.security.alerts.savedOff"));
  }
  throw new Response("Unknown form", { status: 400 });
}

function ActivityPager({ page, hasMore }: { page: number; hasMore: boolean }) {
  const { t } = useTranslation("account");
  if (page <= 1 && !hasMore) return null;
  return (
    <nav aria-label={t("account.security.activity.pages")} className="billing-pagination">
      {page > 1 ? (
        <Link to={page === 2 ? PAGE : `${PAGE}?page=${page - 1}`} rel="prev" className="billing-page">
          {t("account.security.activity.newer")}
        </Link>
      ) : null}
      {hasMore ? (
        <Link to={`${PAGE}?page=${page + 1}`} rel="next" className="billing-page">
          {t("account.security.activity.older")}
        </Link>
      ) : null}
    </nav>
  );
}

function AlertsForm({ on }: { on: boolean }) {
  const flash = useFlashFormError(ALERTS_FORM);
  const { t } = useTranslation("account");
  return (
    <Form method="post" action={PAGE} aria-labelledby="alerts-heading" aria-describedby="alerts-error">
      <input type="hidden" name="intent" value="sign-in-alerts" />
      <FormAlert id="alerts-error" errors={flash ? [flash.message] : null} />
      <div className="check">
        <input type="checkbox" id="sign-in-alerts" name="sign_in_alerts" value="1" defaultChecked={on} key={String(on)} />
        <label htmlFor="sign-in-alerts">{t("account.security.alerts.label")}</label>
      </div>
      <SubmitButton intent="sign-in-alerts" className="button button--primary">
        {t("account.security.alerts.save")}
      </SubmitButton>
    </Form>
  );
}

export default function SecurityPage() {
  const { page, activity, notices, alertsOn, passkeys, addPasskey } = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const { t } = useTranslation("account");
  // A refused 'Add a passkey' form: its message in a toast too (it stays in the form's alert).
  const serverError = idle ? actionData?.serverError : null;
  const toasts: ToastView[] = serverError ? [...notices, { type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : notices;
  return (
    <section className="page security-page billing-history">
      <Toasts toasts={toasts} />
      <header className="page-header">
        <h1>{t("account.security.heading")}</h1>
        <p className="tagline">{t("account.security.tagline")}</p>
      </header>

      <section aria-labelledby="activity-heading" className="billing-card security-section">
        <h2 id="activity-heading">{t("account.security.activity.heading")}</h2>
        <p className="muted">{t("account.security.activity.kept")}</p>
        {activity === null ? (
          <p className="form-error" role="alert">
            {t("account.security.activity.fetchFailed")}
          </p>
        ) : activity.events.length === 0 ? (
          <p>{page > 1 ? t("account.security.activity.noOlder") : t("account.security.activity.none")}</p>
        ) : (
          // biome-ignore lint/a11y/useSemanticElements: a scroll box around a table, not a section of the page's outline
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard
          <div className="billing-table-wrap" role="region" aria-label={t("account.security.activity.table")} tabIndex={0}>
            <table className="billing-table security-events">
              <caption className="visually-hidden">{t("account.security.activity.caption")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("account.security.activity.event")}</th>
                  <th scope="col">{t("account.security.activity.time")}</th>
                  <th scope="col">{t("account.security.activity.browser")}</th>
                  <th scope="col">{t("account.security.activity.network")}</th>
                </tr>
              </thead>
              <tbody>
                {activity.events.map((event) => (
                  <tr key={event.id}>
                    {/* data-label: each value's heading when a phone shows a row as a card (app.css). */}
                    <td data-label={t("account.security.activity.event")}>
                      <span>
                        {event.label}
                        {event.detail ? <span className="muted"> ({event.detail})</span> : null}
                      </span>
                    </td>
                    <td data-label={t("account.security.activity.time")}>
                      <time dateTime={event.at}>{event.atUtc}</time>
                    </td>
                    <td data-label={t("account.security.activity.browser")}>{event.browser}</td>
                    <td data-label={t("account.security.activity.network")}>{event.network}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {activity ? <ActivityPager page={page} hasMore={activity.hasMore} /> : null}
      </section>

      <section aria-labelledby="alerts-heading" className="billing-card security-section">
        <h2 id="alerts-heading">{t("account.security.alerts.heading")}</h2>
        <p className="muted">{t("account.security.alerts.text")}</p>
        <AlertsForm on={alertsOn} />
      </section>

      <section aria-labelledby="more-heading" className="billing-card security-section">
        <h2 id="more-heading">{t("account.security.protection.heading")}</h2>
        <ul className="security-links">
          <li>
            <Link to="/account/two-factor">{t("account.security.protection.twoFactor")}</Link>
          </li>
          <li>
            <Link to="/connected-devices">{t("account.security.protection.devices")}</Link>
          </li>
        </ul>
      </section>

      <PasskeysSection passkeys={passkeys} add={addPasskey} />
    </section>
  );
}
