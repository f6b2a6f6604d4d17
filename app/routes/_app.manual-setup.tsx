import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CopyButton } from "~/components/copy-button";
import { PageAlert } from "~/components/form-alert";
import { ModalDialog } from "~/components/modal-dialog";
import { SubmitButton } from "~/components/submit-button";
import { Toasts, type ToastView } from "~/components/toasts";
import { ConfigurationList, CreateConfigurationForm, CreatedConfigurationView, useBrowserKeys } from "~/features/vpn/wireguard-section";
import {
  type CreatedConfiguration,
  CREDENTIALS_FORM,
  MANUAL_SETUP_PAGE,
  type NewCredentials,
  PASSWORD_SHOWN_ONCE,
} from "~/features/vpn/manual-setup";
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

export const meta: MetaFunction = () =>
  pageMeta("Manual setup | VPN Account", "WireGuard configurations and OpenVPN and IKEv2 credentials for routers and other devices.");

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
  if (intent === "revoke") return revokeConfiguration(api, formData);
  if (intent === "credentials") return makeCredentials(api);
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
        <h1>Manual setup</h1>
        <p className="tagline">Connect a router, a Linux machine or any device our apps don't cover, with WireGuard or with OpenVPN and IKEv2.</p>
      </header>
      <PageAlert />
      {!setup.available ? (
        <p className="notice">Manual setup is not available right now. Use our apps to connect, or ask us through Help.</p>
      ) : (
        <div className="manual-setup__sections">
          <section className="card" aria-labelledby="wireguard-heading">
            <h2 id="wireguard-heading">WireGuard</h2>
            <p className="muted">
              A configuration file for the WireGuard app or for <code>wg-quick</code>: one per device, up to {setup.limit}. Its key pair is
              made for you, and only the public key is kept here.
            </p>
            {answer?.created ? <CreatedConfigurationView created={answer.created} keys={keys} /> : null}
            {!setup.hasPlan ? (
              <div className="manual-setup__plan">
                <p>Manual setup comes with a plan. Choose one to create configurations.</p>
                <Link to="/pricing" className="button button--primary">
                  See plans
                </Link>
              </div>
            ) : setup.atLimit ? (
              <p className="notice" role="status">
                You have {setup.limit} configurations. Revoke one to create another.
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
  const button = credentials ? "Reset credentials" : "Create credentials";
  return (
    <section className="card" aria-labelledby="credentials-heading">
      <h2 id="credentials-heading">Service credentials</h2>
      <p className="muted">
        For OpenVPN and IKEv2 apps that ask for a username and a password. They are not your account's: they only connect, and a reset
        makes the old password stop working at once.
      </p>
      {made ? (
        <div className="credentials-made">
          <p className="notice">
            <strong>{PASSWORD_SHOWN_ONCE}</strong>
          </p>
          <div className="field">
            <label htmlFor="service-username">Username</label>
            <div className="setup-key-row">
              <input id="service-username" className="setup-key" readOnly value={made.username} spellCheck={false} autoComplete="off" />
              <CopyButton value={made.username} />
            </div>
          </div>
          <div className="field">
            <label htmlFor="service-password">Password</label>
            <div className="setup-key-row">
              {/* A text area, so that the password wraps on a narrow phone instead of being cut (as the two-factor setup key). */}
              <textarea id="service-password" className="setup-key" readOnly value={made.password} spellCheck={false} autoComplete="off" rows={2} />
              <CopyButton value={made.password} />
            </div>
          </div>
        </div>
      ) : credentials ? (
        <dl className="dates">
          <dt>Username</dt>
          <dd>
            <code>{credentials.username}</code>
          </dd>
          <dt>Created</dt>
          <dd>{credentials.created}</dd>
        </dl>
      ) : null}
      {hasPlan || credentials ? (
        <Form method="post" action={MANUAL_SETUP_PAGE} id={CREDENTIALS_FORM}>
          <input type="hidden" name="intent" value="credentials" />
          <p className="form-error form-alert" role="alert">
            {error ?? ""}
          </p>
          {credentials && !made ? <p className="field-hint muted">Resetting gives a new password; the one your apps have stops working.</p> : null}
          <SubmitButton intent="credentials" className="button">
            {button}
          </SubmitButton>
        </Form>
      ) : (
        <p>Service credentials come with a plan, as WireGuard configurations do.</p>
      )}
    </section>
  );
}

function RevokeDialog({ confirm }: { confirm: { id: number; name: string } }) {
  return (
    <ModalDialog labelledBy="revoke-title" cancelTo={MANUAL_SETUP_PAGE}>
      <header className="dialog-header">
        <h2 id="revoke-title">Revoke this configuration?</h2>
      </header>
      <p>
        '{confirm.name}' stops connecting at once, on every device that has it. This cannot be undone: a new configuration gets a new key.
      </p>
      <Form method="post" action={MANUAL_SETUP_PAGE} className="device-dialog__actions">
        <input type="hidden" name="intent" value="revoke" />
        <input type="hidden" name="configuration_id" value={confirm.id} />
        <input type="hidden" name="name" value={confirm.name} />
        <Link to={MANUAL_SETUP_PAGE} className="button" replace>
          Cancel
        </Link>
        <SubmitButton intent="revoke" className="button button--danger">
          Revoke
        </SubmitButton>
      </Form>
    </ModalDialog>
  );
}

