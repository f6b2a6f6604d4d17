import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { CopyButton } from "~/components/copy-button";
import { PageAlert } from "~/components/form-alert";
import { ModalDialog } from "~/components/modal-dialog";
import { SubmitButton } from "~/components/submit-button";
import { Toasts, type ToastView } from "~/components/toasts";
import { ConfigurationList, CreateConfigurationForm, CreatedConfigurationView, useBrowserKeys } from "~/features/vpn/wireguard-section";
import { type CreatedConfiguration, CREDENTIALS_FORM, MANUAL_SETUP_PAGE, type NewCredentials } from "~/features/vpn/manual-setup";
import { createConfiguration, loadManualSetup, makeCredentials, NO_STORE, revokeConfiguration } from "~/features/vpn/manual-setup.server";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";

// 'Manual setup' (issue 34, docs/decisions/059): WireGuard configurations for a router, a Linux machine or any
// device the apps don't cover (the key pair made in the browser with JavaScript, on the server without it),
// and the service credentials for OpenVPN and IKEv2. A page that can hold a private key or a password: every
// answer is `private, no-store`, and a configuration or password is in the action's answer only (no redirect,
// no cookie, no toast). 'Revoke' has a server-rendered confirm step (?confirm=revoke-<id>), as Connected
// Devices has.

export const meta: MetaFunction = (args) => pageMeta(args, "vpn.meta.title", "vpn.meta.description");

export const headers: HeadersFunction = () => NO_STORE;

// The bearer token identifies the account (a revoked one answers 401, which signs out): one API call a page,
// beside the layout's /api/me.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const api = createApiClient(request, context, await requireToken(request));
  return data(await loadManualSetup(api, request), { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const api = createApiClient(request, context, await requireToken(request));
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");
  if (intent === "create-configuration") return createConfiguration(api, formData);
  if (intent === "revoke") return revokeConfiguration(api, request, formData);
  if (intent === "credentials") return makeCredentials(api, request);
  throw new Response("Unknown form", { status: 400 });
}

type ActionData = {
  form?: string;
  result?: unknown;
  serverError?: string | null;
  serverErrorInPage?: boolean;
  created?: CreatedConfiguration;
  credentials?: NewCredentials;
  credentialsError?: string;
};

export default function ManualSetupPage() {
  const { t } = useTranslation("vpn");
  const setup = useLoaderData<typeof loader>();
  const actionData = useActionData<ActionData>();
  const idle = useNavigation().state === "idle";
  const answer = idle ? actionData : undefined;
  const keys = useBrowserKeys(answer?.created);
  const serverError = answer?.serverError ?? answer?.credentialsError ?? null;
  const toasts: ToastView[] = serverError ? [{ type: "error", message: serverError, echo: true }] : [];

  return (
    <section className="page manual-setup">
      <Toasts toasts={toasts} />
      <header className="page-header">
        <h1>{t("vpn.page.title")}</h1>
        <p className="tagline">{t("vpn.page.tagline")}</p>
      </header>
      <PageAlert />
      {!setup.available ? (
        <p className="notice">{t("vpn.page.unavailable")}</p>
      ) : (
        <div className="manual-setup__sections">
          <section className="card" aria-labelledby="wireguard-heading">
            <h2 id="wireguard-heading">WireGuard</h2>
            <p className="muted">
              <Trans t={t} i18nKey="vpn.wireguard.intro" values={{ limit: setup.limit }} components={{ code: <code /> }} />
            </p>
            {answer?.created ? <CreatedConfigurationView created={answer.created} keys={keys} /> : null}
            {!setup.hasPlan ? (
              <div className="manual-setup__plan">
                <p>{t("vpn.wireguard.needsPlan")}</p>
                <Link to="/pricing" className="button button--primary">
                  {t("vpn.wireguard.seePlans")}
                </Link>
              </div>
            ) : setup.atLimit ? (
              <p className="notice" role="status">
                {t("vpn.wireguard.atLimit", { limit: setup.limit })}
              </p>
            ) : (
              <CreateConfigurationForm servers={setup.servers} keys={keys} />
            )}
            <ConfigurationList configurations={setup.configurations} />
          </section>
          <CredentialsSection
            credentials={setup.credentials}
            hasPlan={setup.hasPlan}
            made={answer?.form === CREDENTIALS_FORM ? (answer.credentials ?? null) : null}
            error={answer?.form === CREDENTIALS_FORM ? (answer.credentialsError ?? null) : null}
          />
        </div>
      )}
      {setup.available && setup.confirm ? <RevokeDialog confirm={setup.confirm} /> : null}
    </section>
  );
}

function CredentialsSection({
  credentials,
  hasPlan,
  made,
  error,
}: {
  credentials: { username: string; created: string } | null;
  hasPlan: boolean;
  made: NewCredentials | null;
  error: string | null;
}) {
  const { t } = useTranslation("vpn");
  const button = credentials ? t("vpn.credentials.reset") : t("vpn.credentials.create");
  return (
    <section className="card" aria-labelledby="credentials-heading">
      <h2 id="credentials-heading">{t("vpn.credentials.title")}</h2>
      <p className="muted">{t("vpn.credentials.intro")}</p>
      {made ? (
        <div className="credentials-made">
          <p className="notice">
            <strong>{t("vpn.credentials.passwordShownOnce")}</strong>
          </p>
          <div className="field">
            <label htmlFor="service-username">{t("vpn.credentials.username")}</label>
            <div className="setup-key-row">
              <input id="service-username" className="setup-key" readOnly value={made.username} spellCheck={false} autoComplete="off" />
              <CopyButton value={made.username} />
            </div>
          </div>
          <div className="field">
            <label htmlFor="service-password">{t("vpn.credentials.password")}</label>
            <div className="setup-key-row">
              {/* A text area, so that the password wraps on a narrow phone instead of being cut (as the two-factor setup key). */}
              <textarea id="service-password" className="setup-key" readOnly value={made.password} spellCheck={false} autoComplete="off" rows={2} />
              <CopyButton value={made.password} />
            </div>
          </div>
        </div>
      ) : credentials ? (
        <dl className="dates">
          <dt>{t("vpn.credentials.username")}</dt>
          <dd>
            <code>{credentials.username}</code>
          </dd>
          <dt>{t("vpn.credentials.created")}</dt>
          <dd>{credentials.created}</dd>
        </dl>
      ) : null}
      {hasPlan || credentials ? (
        <Form method="post" action={MANUAL_SETUP_PAGE} id={CREDENTIALS_FORM}>
          <input type="hidden" name="intent" value="credentials" />
          <p className="form-error form-alert" role="alert">
            {/* A catalogue key, or the API's message in the page's language. */}
            {error ? t(error) : ""}
          </p>
          {credentials && !made ? <p className="field-hint muted">{t("vpn.credentials.resetHint")}</p> : null}
          <SubmitButton intent="credentials" className="button">
            {button}
          </SubmitButton>
        </Form>
      ) : (
        <p>{t("vpn.credentials.needsPlan")}</p>
      )}
    </section>
  );
}

function RevokeDialog({ confirm }: { confirm: { id: number; name: string } }) {
  const { t } = useTranslation("vpn");
  return (
    <ModalDialog labelledBy="revoke-title" cancelTo={MANUAL_SETUP_PAGE}>
      <header className="dialog-header">
        <h2 id="revoke-title">{t("vpn.revoke.title")}</h2>
      </header>
      <p>{t("vpn.revoke.text", { name: confirm.name })}</p>
      <Form method="post" action={MANUAL_SETUP_PAGE} className="device-dialog__actions">
        <input type="hidden" name="intent" value="revoke" />
        <input type="hidden" name="configuration_id" value={confirm.id} />
        <input type="hidden" name="name" value={confirm.name} />
        <Link to={MANUAL_SETUP_PAGE} className="button" replace>
          {t("vpn.revoke.cancel")}
        </Link>
        <SubmitButton intent="revoke" className="button button--danger">
          {t("vpn.revoke.confirm")}
        </SubmitButton>
      </Form>
    </ModalDialog>
  );
}

