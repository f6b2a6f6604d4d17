import { Form, useRevalidator } from "@remix-run/react";
import { type FormEvent, useEffect, useState } from "react";
import { Field } from "~/components/field";
import { FormAlert, useFlashFormError } from "~/components/form-alert";
import { browserHasWebAuthn, ceremonyError, loadWebAuthn, postJson } from "~/features/passkeys/passkey-client";
import { PASSKEYS_FORM, PASSKEY_CLIENT_MESSAGES } from "~/features/passkeys/passkey-messages";
import { controlCharactersMessage, hasControlCharacters } from "~/schemas/text";

// The security page's 'Passkeys' section (docs/decisions/037): the account's passkeys with 'Remove'
// (a plain form post, works without JavaScript) and 'Add a passkey' (the browser's prompt: JavaScript
// only; without it a note says so).

export interface PasskeyListItem {
  id: string;
  name: string;
  /** 'DD MMMM, Y', written out by the loader. */
  createdAt: string;
  /** 'YYYY-MM-DD HH:mm' (UTC), or null when it never signed in. */
  lastUsedAt: string | null;
}

const NAME_MAX = 60;

export function PasskeysSection({ passkeys }: { passkeys: PasskeyListItem[] }) {
  const flash = useFlashFormError(PASSKEYS_FORM);
  return (
    <section aria-labelledby="passkeys-heading" id="passkeys" className="billing-card security-section">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="muted">
        Sign in with your fingerprint, face or screen lock instead of your password. A passkey sign-in needs no two-factor code.
      </p>
      <FormAlert errors={flash ? [flash.message] : null} />
      {passkeys.length === 0 ? (
        <p className="muted">No passkeys yet.</p>
      ) : (
        <ul className="passkey-list" aria-label="Your passkeys">
          {passkeys.map((passkey) => (
            <li key={passkey.id} className="passkey-item">
              <div>
                <p className="passkey-item__name">{passkey.name}</p>
                <p className="passkey-item__dates muted">
                  Added {passkey.createdAt} · {passkey.lastUsedAt ? `Last used ${passkey.lastUsedAt}` : "Never used"}
                </p>
              </div>
              <Form method="post" action="/account/passkeys/remove">
                <input type="hidden" name="passkey_id" value={passkey.id} />
                <button type="submit" className="button">
                  Remove
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
      <AddPasskey />
    </section>
  );
}

/** 'Passkey name' and 'Add a passkey', once JavaScript runs; before that, the note that it needs it. */
function AddPasskey() {
  const [hydrated, setHydrated] = useState(false);
  const [supported, setSupported] = useState(true);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState("");
  const [formError, setFormError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const revalidator = useRevalidator();

  useEffect(() => {
    setHydrated(true);
    setSupported(browserHasWebAuthn());
  }, []);

  if (!hydrated) return <p className="muted">Adding a passkey needs JavaScript. Turn it on in your browser to add one.</p>;
  if (!supported) return <p className="muted">{PASSKEY_CLIENT_MESSAGES.unsupported}</p>;

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setNameError("");
    setFormError("");
    setStatus("");
    const trimmed = name.trim();
    if (!trimmed) return setNameError(PASSKEY_CLIENT_MESSAGES.nameRequired);
    if (trimmed.length > NAME_MAX) return setNameError(`The passkey name must not be longer than ${NAME_MAX} characters`);
    // Before the prompt: a name the API refuses would leave a passkey on the device that the account lacks.
    if (hasControlCharacters(trimmed)) return setNameError(controlCharactersMessage("passkey name"));
    setBusy(true);
    try {
      const options = await postJson("/account/passkeys/options");
      if (!options.ok) return setFormError(String(options.data.error ?? PASSKEY_CLIENT_MESSAGES.failed));
      const { startRegistration } = await loadWebAuthn();
      let response: unknown;
      try {
        // biome-ignore lint/suspicious/noExplicitAny: the API's options are SimpleWebAuthn's optionsJSON.
        response = await startRegistration({ optionsJSON: options.data.options as any });
      } catch (failure) {
        return setFormError(ceremonyError(failure) ?? PASSKEY_CLIENT_MESSAGES.cancelled);
      }
      const answer = await postJson("/account/passkeys/add", { challengeId: options.data.challengeId, name: trimmed, response });
      if (!answer.ok) {
        const message = String(answer.data.error ?? PASSKEY_CLIENT_MESSAGES.failed);
        return answer.data.field === "name" ? setNameError(message) : setFormError(message);
      }
      setName("");
      setStatus(String(answer.data.message ?? "Passkey added."));
      revalidator.revalidate();
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={add} noValidate aria-labelledby="add-passkey-heading">
      <h3 id="add-passkey-heading">Add a passkey</h3>
      <FormAlert id="add-passkey-error" errors={formError ? [formError] : null} />
      <p className="muted" role="status">
        {status}
      </p>
      <Field label={<label htmlFor="passkey-name">Passkey name</label>} errorId="passkey-name-error" errors={nameError ? [nameError] : undefined}>
        <input
          id="passkey-name"
          name="name"
          type="text"
          maxLength={NAME_MAX}
          autoComplete="off"
          placeholder="For example: Laptop"
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? "passkey-name-error" : undefined}
        />
      </Field>
      <button type="submit" className="button button--primary" disabled={busy}>
        Add a passkey
      </button>
    </form>
  );
}
