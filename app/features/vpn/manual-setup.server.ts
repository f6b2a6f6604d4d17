import { data } from "@remix-run/node";
import type { TFunction } from "i18next";
import { languageOf, translatorOf } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import { WireGuardConfigSchema } from "~/schemas/index.server";
import { type createApiClient, serviceUnavailable } from "~/utils/api.server";
import { formatUtcDateTime } from "~/utils/dates";
import { formFailure, parseSubmission } from "~/utils/forms.server";
import { qrCodeSvg } from "~/utils/qr-code.server";
import { redirectWithPageError, redirectWithSuccess } from "~/utils/toast.server";
import { serverKeyPair } from "./key-pair.server";
import {
  type ConfigurationView,
  CREATE_FORM,
  type CreatedConfiguration,
  CREDENTIALS_FORM,
  MANUAL_SETUP_PAGE,
  type ServerGroup,
} from "./manual-setup";
import { buildWireGuardConfig, configDataUrl, downloadFileName, svgDataUrl } from "./wireguard-config";

// The 'Manual setup' page's server side (issue 34): what the loader reads from the API and what each of the
// page's forms posts. A key pair made here (a page without JavaScript) lives only in the action that makes
// it: its public key is registered, its private key is written into the answer's configuration and dropped.

type Api = ReturnType<typeof createApiClient>;

/** Every answer of this page can hold a private key or a password: never kept by a browser or a cache. */
export const NO_STORE = { "Cache-Control": "private, no-store" };

// Catalogue keys: the page's FormAlert, PageAlert and Toasts translate them.
const CREATE_FAILED = "vpn.wireguard.create.failed";
const REVOKE_FAILED = "vpn.revoke.failed";
const CREDENTIALS_FAILED = "vpn.credentials.failed";


type Place = { hostname: string; country: string; city: string };

/**
 * The 'Server' select's groups: one per country (in the API's order of first appearance), each city once, named by its host when a city has
 * several; `t` marks an offline server in the page's language.
 */
export function serverGroups(servers: Array<Place & { online: boolean }>, t: TFunction): ServerGroup[] {
  const groups = new Map<string, ServerGroup>();
  const perCity = new Map<string, number>();
  for (const server of servers) perCity.set(`${server.country}\u0000${server.city}`, (perCity.get(`${server.country}\u0000${server.city}`) ?? 0) + 1);
  for (const server of servers) {
    let group = groups.get(server.country);
    if (!group) groups.set(server.country, (group = { country: server.country, options: [] }));
    const shared = (perCity.get(`${server.country}\u0000${server.city}`) ?? 0) > 1;
    const place = `${server.city}${shared ? ` (${server.hostname})` : ""}`;
    const label = server.online ? place : t("vpn.wireguard.create.serverOffline", { server: place });
    group.options.push({ value: server.hostname, label, disabled: !server.online });
  }
  return [...groups.values()];
}

function placeName(server: { city: string; country: string }): string {
  return [server.city, server.country].filter(Boolean).join(", ");
}

export async function loadManualSetup(api: Api, request: Request) {
  const result = await api.get("/api/vpn/manual-setup");
  if (!result.ok && result.status === 404) return { available: false as const };
  if (!result.ok) throw serviceUnavailable();
  const setup = result.data;
  if (!setup.available) return { available: false as const };
  const { longDate } = formattersFor(languageOf(request));
  const configurations: ConfigurationView[] = setup.configurations.map((configuration) => ({
    id: configuration.id,
    name: configuration.name,
    server: placeName(configuration.server),
    createdAt: configuration.created_at,
    created: longDate(configuration.created_at),
    lastHandshakeAt: configuration.last_handshake_at ?? null,
    lastHandshake: configuration.last_handshake_at ? formatUtcDateTime(configuration.last_handshake_at) : null,
    paused: configuration.status === "paused",
  }));
  // ?confirm=revoke-<id>: the server-rendered confirm step of 'Revoke' (as Connected Devices has it).
  const match = /^revoke-(\d{1,15})$/.exec(new URL(request.url).searchParams.get("confirm") ?? "");
  const confirming = match ? (configurations.find((c) => c.id === Number(match[1])) ?? null) : null;
  return {
    available: true as const,
    hasPlan: setup.has_plan,
    limit: setup.limit,
    atLimit: setup.configurations.length >= setup.limit,
    servers: serverGroups(setup.servers, translatorOf(request)),
    configurations,
    confirm: confirming ? { id: confirming.id, name: confirming.name } : null,
    credentials: setup.credentials ? { username: setup.credentials.username, created: longDate(setup.credentials.created_at) } : null,
  };
}

type Submission = ReturnType<typeof parseSubmission<typeof WireGuardConfigSchema>>;

/** 'Create configuration': the API's refusal next to its field (name, server), anything else in the form's alert; what was typed stays. */
function createFailure(submission: Submission, result: { status: number; message: string; fieldErrors: Record<string, string[]> }) {
  const fieldErrors: Record<string, string[]> = {};
  for (const field of ["name", "server"]) if (result.fieldErrors[field]?.length) fieldErrors[field] = result.fieldErrors[field]!;
  // The public key is a hidden field: its refusal (not 32 bytes, already registered) is the form's.
  const message = Object.keys(fieldErrors).length ? null : result.fieldErrors.public_key?.[0] || result.message || CREATE_FAILED;
  return formFailure(CREATE_FORM, submission, message, result.status, { fieldErrors, hideFields: ["public_key"], headers: NO_STORE, errorAt: "" });
}

export async function createConfiguration(api: Api, formData: FormData) {
  const submission = parseSubmission(formData, WireGuardConfigSchema);
  if (submission.status !== "success") {
    return formFailure(CREATE_FORM, submission, null, 400, { hideFields: ["public_key"], headers: NO_STORE });
  }
  const { name, server, public_key } = submission.value;
  // No public key posted: a page without JavaScript. The pair is made here, for this answer only.
  const pair = public_key ? null : serverKeyPair();
  const publicKey = public_key || pair!.publicKey;
  const result = await api.post("/api/vpn/configurations", { body: { name, server, public_key: publicKey } });
  if (!result.ok) return createFailure(submission, result);
  const { configuration, wireguard } = result.data;
  const fileName = downloadFileName(wireguard.file_name);
  let created: CreatedConfiguration;
  if (pair) {
    const text = buildWireGuardConfig(pair.privateKey, wireguard);
    created = { by: "server", name: configuration.name, fileName, text, downloadHref: configDataUrl(text), qrCode: svgDataUrl(await qrCodeSvg(text)) };
  } else {
    created = { by: "browser", name: configuration.name, fileName, publicKey, settings: wireguard };
  }
  return data({ form: CREATE_FORM, result: submission.reply({ resetForm: true }), created }, { headers: NO_STORE });
}

export async function revokeConfiguration(api: Api, request: Request, formData: FormData) {
  const id = Number(formData.get("configuration_id"));
  if (!Number.isSafeInteger(id) || id <= 0) return redirectWithPageError(MANUAL_SETUP_PAGE, REVOKE_FAILED);
  const result = await api.post("/api/vpn/configurations/{id}/revoke", { params: { path: { id } } });
  if (!result.ok) return redirectWithPageError(MANUAL_SETUP_PAGE, result.message || REVOKE_FAILED);
  const name = String(formData.get("name") ?? "").slice(0, 80);
  const t = translatorOf(request);
  return redirectWithSuccess(MANUAL_SETUP_PAGE, name ? t("vpn.revoke.done", { name }) : t("vpn.revoke.doneUnnamed"));
}

/** 'Create credentials' and 'Reset credentials' (one call: a reset makes the old password stop working). The password is in this answer only. */
export async function makeCredentials(api: Api, request: Request) {
  const result = await api.post("/api/vpn/credentials");
  if (!result.ok) {
    return data({ form: CREDENTIALS_FORM, credentialsError: result.message || CREDENTIALS_FAILED }, { status: result.status >= 400 && result.status < 500 ? result.status : 503, headers: NO_STORE });
  }
  const { username, password, created_at } = result.data;
  const created = formattersFor(languageOf(request)).longDate(created_at);
  return data({ form: CREDENTIALS_FORM, credentials: { username, password, created } }, { headers: NO_STORE });
}
