import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ModalDialog } from "~/components/modal-dialog";
import { SubmitButton } from "~/components/submit-button";
import { Toasts, type ToastView } from "~/components/toasts";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { requireToken, requireUser } from "~/utils/auth.server";
import { formatUtcDateTime } from "~/utils/dates";
import { readFormData } from "~/utils/forms.server";
import { destroySessionCookie } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { pageMeta } from "~/utils/meta";

// Connected devices (commerce §2, §3, §4, §7, §8). The confirmations are server-rendered states of
// this page (?confirm=device-<id> / ?confirm=all / ?confirm=others, DESIGN §3): Terminate, Clear All
// and Sign out other devices are GET forms that open the dialog, whose button posts the action, so
// everything works without JavaScript. Each device's name ('Firefox 133 on Windows 11') and icon are
// the API's (issue 33).

export const meta: MetaFunction = (args) => pageMeta(args, "account.meta.devices.title", "account.meta.devices.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const PAGE = "/connected-devices";
// Catalogue keys: the page's alert and the toasts show them in the page's language.
const FETCH_FAILED = "account.devices.fetchFailed";
const TERMINATE_FAILED = "account.devices.terminateFailed";

type Device = ApiSchemas["Device"];

/** Names, the same in every language, or catalogue keys. */
const ICON_LABELS: Record<Device["device_icon"], string> = {
  windows: "Windows",
  apple: "Apple",
  android: "Android",
  linux: "Linux",
  desktop: "account.devices.icon.desktop",
  browser: "account.devices.icon.browser",
};


export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);
  // The bearer token identifies the caller, so user_id (optional in the API) is not needed here and
  // the page costs a single call.
  const result = await api.get("/api/devices");
  const devices = result.ok ? (result.data[0] ?? []) : [];
  const notices: ToastView[] = result.ok ? [] : [{ type: "error", message: result.message || FETCH_FAILED }];

  const confirmParam = new URL(request.url).searchParams.get("confirm") ?? "";
  const others = devices.filter((d) => !d.current).length;
  let confirm: { kind: "all" } | { kind: "others"; count: number } | { kind: "device"; device: Device } | null = null;
  if (confirmParam === "all" && devices.length > 0) confirm = { kind: "all" };
  if (confirmParam === "others" && others > 0) confirm = { kind: "others", count: others };
  const match = /^device-(\d{1,15})$/.exec(confirmParam);
  if (match) {
    const device = devices.find((d) => d.id === Number(match[1]));
    if (device) confirm = { kind: "device", device };
  }

  return data(
    {
      fetchFailed: !result.ok,
      notices,
      confirm,
      others,
      devices: devices.map((d) => ({ ...d, lastLoginUtc: formatUtcDateTime(d.last_login_at), lastActiveUtc: formatUtcDateTime(d.last_active_at) })),
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user, api } = await requireUser(request, context);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");

  if (intent === "terminate") {
    const deviceId = Number(formData.get("device_id"));
    if (!Number.isSafeInteger(deviceId) || deviceId <= 0) {
      return data({ error: TERMINATE_FAILED, detail: null }, { status: 400, headers: NO_STORE });
    }
    const result = await api.post("/api/devices/terminate", { body: { user_id: user.id, device_id: deviceId } });
    if (!result.ok) {
      return data({ error: TERMINATE_FAILED, detail: result.message || null }, { status: result.status >= 400 ? result.status : 502, headers: NO_STORE });
    }
    if (result.data.current) {
      // This browser's own token is gone: end the session here too.
      return redirectWithSuccess("/login", result.message || "account.devices.terminated", {
        headers: { "Set-Cookie": await destroySessionCookie(request) },
      });
    }
    return redirectWithSuccess(PAGE, result.message || "account.devices.terminated");
  }

  if (intent === "terminate-others") {
    const result = await api.post("/api/devices/terminate-others", { body: { user_id: user.id } });
    if (!result.ok) {
      return data({ error: TERMINATE_FAILED, detail: result.message || null }, { status: result.status >= 400 ? result.status : 502, headers: NO_STORE });
    }
    // This browser's session is kept: it stays here, signed in.
    return redirectWithSuccess(PAGE, result.message || "account.devices.othersSignedOut");
  }

  if (intent === "terminate-all") {
    const result = await api.post("/api/devices/terminate-all", { body: { user_id: user.id } });
    if (!result.ok) {
      return data({ error: TERMINATE_FAILED, detail: result.message || null }, { status: result.status >= 400 ? result.status : 502, headers: NO_STORE });
    }
    // Commerce §4: after terminating all devices the user goes to /login (every token is revoked).
    return redirectWithSuccess("/login", result.message || "account.devices.allTerminated", {
      headers: { "Set-Cookie": await destroySessionCookie(request) },
    });
  }

  return data({ error: TERMINATE_FAILED, detail: null }, { status: 400, headers: NO_STORE });
}

/**
 * The last sign-in time: rendered on the server in UTC with the zone named; once React runs, the
 * browser's local time in the same format, naming the browser's zone (commerce §9).
 */
function LastLogin({ iso, utc }: { iso: string; utc: string }) {
  const [text, setText] = useState(utc);
  useEffect(() => {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return;
    const pad = (n: number) => String(n).padStart(2, "0");
    const zone =
      new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(d).find((part) => part.type === "timeZoneName")
        ?.value ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    setText(`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())} ${zone}`);
  }, [iso]);
  return <time dateTime={iso}>{text}</time>;
}

function DeviceIcon({ icon }: { icon: Device["device_icon"] }) {
  const { t } = useTranslation("account");
  const label = t(ICON_LABELS[icon] ?? "account.devices.icon.device");
  return (
    <span className={`device-icon device-icon--${icon}`} role="img" aria-label={label}>
      <svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
        {icon === "windows" ? (
          <path fill="currentColor" d="M3 5.5 10.5 4.5v7H3zM11.5 4.4 21 3v8.5h-9.5zM3 12.5h7.5v7L3 18.5zM11.5 12.5H21V21l-9.5-1.4z" />
        ) : icon === "apple" ? (
          <path
            fill="currentColor"
            d="M16.4 12.6c0-2.4 2-3.6 2.1-3.7-1.2-1.7-3-1.9-3.6-2-1.5-.2-3 .9-3.8.9s-2-.9-3.3-.9C6.1 7 4.5 8 3.6 9.5c-1.8 3.1-.5 7.8 1.3 10.3.9 1.2 1.9 2.6 3.2 2.6 1.3-.1 1.8-.8 3.3-.8s2 .8 3.3.8c1.4 0 2.2-1.3 3.1-2.5 1-1.4 1.4-2.8 1.4-2.9 0 0-2.8-1.1-2.8-4.4zM14 5.3c.7-.9 1.2-2 1-3.3-1 .1-2.2.7-2.9 1.5-.6.7-1.2 1.9-1 3.1 1.1.1 2.2-.6 2.9-1.3z"
          />
        ) : icon === "android" ? (
          <path
            fill="currentColor"
            d="M6 9h12v8a1 1 0 0 1-1 1h-1v3h-2v-3h-4v3H8v-3H7a1 1 0 0 1-1-1zM3.5 9h1.5v7H3.5zM19 9h1.5v7H19zM6.2 8a6 6 0 0 1 11.6 0zM9 5.5a.8.8 0 1 0 0 .01zM15 5.5a.8.8 0 1 0 0 .01z"
          />
        ) : icon === "linux" ? (
          <path
            fill="currentColor"
            d="M12 2c-2.2 0-3.5 1.8-3.5 4.2 0 1.5.3 2.5-.9 4.3C6.4 12.3 5 14.6 5 17c0 .9.2 1.6.6 2.2L4 21h5.2c.9.6 1.8 1 2.8 1s1.9-.4 2.8-1H20l-1.6-1.8c.4-.6.6-1.3.6-2.2 0-2.4-1.4-4.7-2.6-6.5-1.2-1.8-.9-2.8-.9-4.3C15.5 3.8 14.2 2 12 2z"
          />
        ) : icon === "desktop" ? (
          <path fill="currentColor" d="M3 4h18v12H3zM5 6v8h14V6zM9 18h6v2H9z" />
        ) : (
          <path
            fill="currentColor"
            d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm6.9 6h-3a15.6 15.6 0 0 0-1.3-3.8A8 8 0 0 1 18.9 8zM12 4c.8 1.2 1.5 2.5 1.9 4h-3.8c.4-1.5 1.1-2.8 1.9-4zM4.3 14a8 8 0 0 1 0-4h3.4a16 16 0 0 0 0 4zm.8 2h3a15.6 15.6 0 0 0 1.3 3.8A8 8 0 0 1 5.1 16zm3-8h-3a8 8 0 0 1 4.3-3.8C8.9 5.4 8.4 6.7 8.1 8zM12 20c-.8-1.2-1.5-2.5-1.9-4h3.8c-.4 1.5-1.1 2.8-1.9 4zm2.3-6H9.7a14 14 0 0 1 0-4h4.6a14 14 0 0 1 0 4zm.3 5.8c.6-1.2 1-2.5 1.3-3.8h3a8 8 0 0 1-4.3 3.8zm1.7-5.8a16 16 0 0 0 0-4h3.4a8 8 0 0 1 0 4z"
          />
        )}
      </svg>
    </span>
  );
}

/** What kind of sign-in a device is: a browser, or an app (its platform as it signed in): a catalogue key, or the platform's name. */
function platformLabel(device: Device): string {
  if (device.platform === "Web Browser") return "account.devices.platform.browser";
  return device.platform === "Desktop" ? "account.devices.platform.desktop" : device.platform;
}

type Confirm = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["confirm"]>;

const CONFIRM_ACTIONS = {
  all: { title: "account.devices.confirm.allTitle", intent: "terminate-all", button: "account.devices.clearAll" },
  others: { title: "account.devices.confirm.othersTitle", intent: "terminate-others", button: "account.devices.signOutOthers" },
  device: { title: "account.devices.confirm.deviceTitle", intent: "terminate", button: "account.devices.terminate" },
} as const;

function ConfirmDialog({ confirm }: { confirm: Confirm }) {
  const { t } = useTranslation("account");
  const { title, intent, button } = CONFIRM_ACTIONS[confirm.kind];
  return (
    <ModalDialog labelledBy="device-confirm-title" cancelTo={PAGE}>
        <header className="dialog-header">
          <h2 id="device-confirm-title">{t(title)}</h2>
        </header>
        {confirm.kind === "all" ? (
          <p>{t("account.devices.confirm.allText")}</p>
        ) : confirm.kind === "others" ? (
          <p>{t("account.devices.confirm.othersText", { count: confirm.count })}</p>
        ) : confirm.device.current ? (
          <p>{t("account.devices.confirm.currentText", { name: confirm.device.name })}</p>
        ) : (
          <p>{t("account.devices.confirm.deviceText", { name: confirm.device.name })}</p>
        )}
        <Form method="post" action={PAGE} className="device-dialog__actions">
          <input type="hidden" name="intent" value={intent} />
          {confirm.kind === "device" ? <input type="hidden" name="device_id" value={confirm.device.id} /> : null}
          <Link to={PAGE} className="button" replace>
            {t("account.devices.confirm.cancel")}
          </Link>
          <SubmitButton intent={intent} className="button button--danger">
            {t(button)}
          </SubmitButton>
        </Form>
    </ModalDialog>
  );
}

export default function ConnectedDevicesPage() {
  const { devices, notices, confirm, others, fetchFailed } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const failure = actionData && "error" in actionData ? actionData : null;
  const { t } = useTranslation("account");
  // The failure stays in the page's alert below (issue 21); the toast only echoes it.
  const toasts: ToastView[] = failure ? [...notices, { type: "error", message: failure.detail || failure.error, echo: true }] : notices;

  return (
    <section className="page devices-page">
      <Toasts toasts={toasts} />
      <header className="page-header devices-header">
        <div>
          <h1>{t("account.devices.heading")}</h1>
          <h2 className="devices-heading">{t("account.devices.subheading")}</h2>
          <p className="tagline">{t("account.devices.tagline")}</p>
        </div>
        {devices.length > 0 ? (
          <div className="devices-header__actions">
            {others > 0 ? (
              <Form method="get" action={PAGE}>
                <input type="hidden" name="confirm" value="others" />
                <button type="submit" className="button">
                  {t("account.devices.signOutOthers")}
                </button>
              </Form>
            ) : null}
            <Form method="get" action={PAGE}>
              <input type="hidden" name="confirm" value="all" />
              <button type="submit" className="button button--danger">
                {t("account.devices.clearAll")}
              </button>
            </Form>
          </div>
        ) : null}
      </header>

      {failure ? (
        <p className="form-error" role="alert">
          {failure.detail && failure.detail !== failure.error
            ? t("account.devices.failureDetail", { error: t(failure.error), detail: failure.detail })
            : t(failure.error)}
        </p>
      ) : null}

      {fetchFailed ? (
        <p className="form-error" role="alert">
          {t(FETCH_FAILED)}
        </p>
      ) : devices.length === 0 ? (
        <p className="devices-empty">{t("account.devices.none")}</p>
      ) : (
        <ul className="devices-grid" aria-label={t("account.devices.list")}>
          {devices.map((device) => (
            <li key={device.id} className={`card device-card${device.current ? " device-card--current" : ""}`}>
              <div className="device-card__top">
                <DeviceIcon icon={device.device_icon} />
                <div>
                  <h2 className="device-card__os">{device.name}</h2>
                  <p className="device-card__model muted">{t(platformLabel(device))}</p>
                </div>
                {device.current ? <span className="badge badge--on">{t("account.devices.thisDevice")}</span> : null}
              </div>
              <p className="device-card__login">
                <span className="muted">{t("account.devices.lastLogin")}</span> <LastLogin iso={device.last_login_at} utc={device.lastLoginUtc} />
              </p>
              <p className="device-card__login device-card__active">
                <span className="muted">{t("account.devices.lastActive")}</span> <LastLogin iso={device.last_active_at} utc={device.lastActiveUtc} />
              </p>
              <Form method="get" action={PAGE}>
                <input type="hidden" name="confirm" value={`device-${device.id}`} />
                <button
                  type="submit"
                  className="button button--block"
                  aria-label={device.current ? t("account.devices.terminateCurrentLabel") : t("account.devices.terminateLabel", { name: device.name })}
                >
                  {t("account.devices.terminate")}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}

      {confirm ? <ConfirmDialog confirm={confirm} /> : null}
    </section>
  );
}
