import { getFormProps, getInputProps, getSelectProps, useForm } from "@conform-to/react";
import { Form, useNavigation, useSubmit } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { CopyButton } from "~/components/copy-button";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { Spinner } from "~/components/spinner";
import type { WireGuardConfigFields } from "~/schemas/wireguard";
import { useFirstRefusedField, useFormOptions } from "~/utils/client-validation";
import { browserKeyPair, type KeyPair } from "./browser-key-pair";
import {
  type ConfigurationView,
  CREATE_FORM,
  type CreatedConfiguration,
  FASTEST,
  MANUAL_SETUP_PAGE,
  type ServerGroup,
} from "./manual-setup";
import { qrCodeDataUrl } from "./qr-code-browser";
import { buildWireGuardConfig, configDataUrl } from "./wireguard-config";

// The WireGuard part of 'Manual setup' (issue 34): 'Create configuration', the configuration just made, and
// the account's list with 'Revoke'. With JavaScript the key pair is made in this page (browser-key-pair.ts):
// the form posts only its public key, and the file is written here from the API's answer and the private
// key this page kept. Without JavaScript the form posts no key, and the action answers the whole file.

/** A catalogue key: FormAlert translates it. */
const KEY_PAIR_FAILED = "vpn.wireguard.create.keyPairFailed";

/** The configuration made in this page: the file, its download link and its QR code (drawn when its module has loaded). */
type BuiltInBrowser = { publicKey: string; text: string; href: string; qrCode: string | null };

export type BrowserKeys = {
  /** Makes a pair, keeps it for the answer, and gives its public key (the only part that is posted). */
  makePair(): Promise<string>;
  built: BuiltInBrowser | null;
  /** The answer names a key this page does not hold (a reload lost it): the file cannot be written. */
  lost: boolean;
};

/**
 * The browser's side of a configuration: the pair made before the post, and the file written once the API
 * has answered for its public key. The private key is held only until then, then only in the file shown; it
 * is dropped when the answer leaves the page (another navigation).
 */
export function useBrowserKeys(created: CreatedConfiguration | undefined): BrowserKeys {
  const pending = useRef<KeyPair | null>(null);
  const [built, setBuilt] = useState<BuiltInBrowser | null>(null);
  const [lost, setLost] = useState(false);

  useEffect(() => {
    if (created?.by !== "browser") {
      setBuilt(null);
      setLost(false);
      return;
    }
    const pair = pending.current;
    if (!pair || pair.publicKey !== created.publicKey) {
      setBuilt((current) => (current?.publicKey === created.publicKey ? current : null));
      setLost((current) => current || !pair);
      return;
    }
    const text = buildWireGuardConfig(pair.privateKey, created.settings);
    pending.current = null;
    setLost(false);
    setBuilt({ publicKey: pair.publicKey, text, href: configDataUrl(text), qrCode: null });
    let live = true;
    void qrCodeDataUrl(text).then((qrCode) => {
      if (live) setBuilt((current) => (current?.publicKey === pair.publicKey ? { ...current, qrCode } : current));
    });
    return () => {
      live = false;
    };
  }, [created]);

  const makePair = useCallback(async () => {
    const pair = await browserKeyPair();
    pending.current = pair;
    return pair.publicKey;
  }, []);

  return { makePair, built, lost };
}

export function CreateConfigurationForm({ servers, keys }: { servers: ServerGroup[]; keys: BrowserKeys }) {
  const { t } = useTranslation("vpn");
  const submit = useSubmit();
  const navigation = useNavigation();
  const [making, setMaking] = useState(false);
  const [keyError, setKeyError] = useState<string | null>(null);
  const options = useFormOptions<WireGuardConfigFields>(CREATE_FORM, () => import("~/schemas/wireguard").then((module) => module.WireGuardConfigSchema));
  const [form, fields] = useForm<WireGuardConfigFields>({
    ...options,
    // What a reset after a configuration is made goes back to (else the select would show no option).
    defaultValue: { server: FASTEST },
    // With JavaScript: the pair first, then the post with its public key (never the private key).
    onSubmit(event, { formData }) {
      event.preventDefault();
      setMaking(true);
      setKeyError(null);
      keys
        .makePair()
        .then(
          (publicKey) => {
            formData.set("public_key", publicKey);
            submit(formData, { method: "post", action: MANUAL_SETUP_PAGE });
          },
          () => setKeyError(KEY_PAIR_FAILED),
        )
        .finally(() => setMaking(false));
    },
  });
  const refused = useFirstRefusedField(CREATE_FORM);
  const sending = making || (navigation.state !== "idle" && navigation.formData?.get("intent") === "create-configuration");
  const formErrors = keyError ? [keyError] : form.errors;

  return (
    <Form method="post" action={MANUAL_SETUP_PAGE} {...getFormProps(form)} noValidate className="wireguard-form">
      <h3>{t("vpn.wireguard.create.title")}</h3>
      <input type="hidden" name="intent" value="create-configuration" />
      <FormAlert id={form.errorId} errors={formErrors} />
      <div className="wireguard-form__fields">
        <Field label={<label htmlFor={fields.name.id}>{t("vpn.wireguard.create.name")}</label>} errorId={fields.name.errorId} errors={fields.name.errors}>
          <input
            {...getInputProps(fields.name, { type: "text" })}
            autoComplete="off"
            placeholder={t("vpn.wireguard.create.namePlaceholder")}
            autoFocus={refused === "name"}
          />
        </Field>
        <Field label={<label htmlFor={fields.server.id}>{t("vpn.wireguard.create.server")}</label>} errorId={fields.server.errorId} errors={fields.server.errors}>
          <select {...getSelectProps(fields.server)} autoFocus={refused === "server"}>
            <option value={FASTEST}>{t("vpn.wireguard.create.fastest")}</option>
            {servers.map((group) => (
              <optgroup key={group.country} label={group.country}>
                {group.options.map((option) => (
                  <option key={option.value} value={option.value} disabled={option.disabled}>
                    {option.label}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </Field>
      </div>
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={sending} aria-busy={sending || undefined}>
          {sending ? <Spinner /> : null}
          {t("vpn.wireguard.create.button")}
        </button>
      </div>
    </Form>
  );
}

/** The configuration just made: its file, 'Download configuration' and the QR code, shown once. */
export function CreatedConfigurationView({ created, keys }: { created: CreatedConfiguration; keys: BrowserKeys }) {
  const { t } = useTranslation("vpn");
  let file: { text: string; href: string; qrCode: string | null } | null = null;
  if (created.by === "server") file = { text: created.text, href: created.downloadHref, qrCode: created.qrCode };
  else if (keys.built?.publicKey === created.publicKey) file = keys.built;

  return (
    <section className="wireguard-result" aria-labelledby="wireguard-result-heading">
      <h3 id="wireguard-result-heading">{t("vpn.wireguard.created.title", { name: created.name })}</h3>
      {file ? (
        <>
          <p className="notice">
            <strong>{t("vpn.wireguard.created.shownOnce")}</strong>
          </p>
          <div className="wireguard-result__body">
            {file.qrCode ? (
              <img className="qr-code" src={file.qrCode} alt={t("vpn.wireguard.created.qrAlt")} width={192} height={192} />
            ) : (
              <p className="muted" role="status">
                {t("vpn.wireguard.created.drawingQrCode")}
              </p>
            )}
            <div className="field wireguard-result__text">
              <label htmlFor="wireguard-config">{t("vpn.wireguard.created.configuration")}</label>
              <textarea id="wireguard-config" className="setup-key wireguard-config" readOnly rows={10} value={file.text} spellCheck={false} />
            </div>
          </div>
          <div className="form-actions">
            <a className="button button--primary" href={file.href} download={created.fileName}>
              {t("vpn.wireguard.created.download")}
            </a>
            <CopyButton value={file.text} label={t("vpn.wireguard.created.copy")} />
          </div>
        </>
      ) : keys.lost ? (
        <p className="form-error" role="alert">
          {t("vpn.wireguard.created.keyLost", { name: created.name })}
        </p>
      ) : (
        <p className="muted" role="status">
          {t("vpn.wireguard.created.writing")}
        </p>
      )}
    </section>
  );
}

export function ConfigurationList({ configurations }: { configurations: ConfigurationView[] }) {
  const { t } = useTranslation("vpn");
  return (
    <>
      <h3 id="configurations-heading">{t("vpn.wireguard.list.title")}</h3>
      {configurations.length === 0 ? (
        <p className="muted">{t("vpn.wireguard.list.empty")}</p>
      ) : (
        <ul className="configuration-list" aria-labelledby="configurations-heading">
          {configurations.map((configuration) => (
            <li key={configuration.id} className="configuration-item">
              <div className="configuration-item__text">
                <p className="configuration-item__name">{configuration.name}</p>
                <p className="muted">
                  {t("vpn.wireguard.list.serverAndCreated", { server: configuration.server, created: configuration.created })}
                </p>
                <p className="muted">
                  {configuration.lastHandshakeAt && configuration.lastHandshake ? (
                    <Trans
                      t={t}
                      i18nKey="vpn.wireguard.list.lastHandshake"
                      values={{ when: configuration.lastHandshake }}
                      components={{ time: <time dateTime={configuration.lastHandshakeAt} /> }}
                    />
                  ) : (
                    t("vpn.wireguard.list.noHandshake")
                  )}
                </p>
                {configuration.paused ? <p className="badge badge--paused">{t("vpn.wireguard.list.paused")}</p> : null}
              </div>
              <Form method="get" action={MANUAL_SETUP_PAGE}>
                <input type="hidden" name="confirm" value={`revoke-${configuration.id}`} />
                <button type="submit" className="button" aria-label={t("vpn.wireguard.list.revokeLabel", { name: configuration.name })}>
                  {t("vpn.wireguard.list.revoke")}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
