// Placeholder: the passkeys helper replaces this file with the real 'Passkeys' section.

export interface PasskeyListItem {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function PasskeysSection({ passkeys }: { passkeys: PasskeyListItem[] }) {
  return (
    <section aria-labelledby="passkeys-heading" id="passkeys" className="card security-section">
      <h2 id="passkeys-heading">Passkeys</h2>
      {passkeys.length === 0 ? <p className="muted">No passkeys yet.</p> : null}
    </section>
  );
}
