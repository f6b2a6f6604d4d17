/*
 * oidc-provider storage for the identity sandbox: one in-memory store per provider, emptied by
 * close(). The sandbox is in memory by design (it starts afresh with new keys on every start), so
 * this replaces oidc-provider's built-in development adapter, which would print a "you MUST change
 * it" warning at every start of the product.
 */

interface Entry {
  payload: Record<string, unknown>;
  /** ms since the epoch; Infinity when stored without a lifetime. */
  expiresAt: number;
}

/** Models whose rows belong to a grant (revoked together by revokeByGrantId). */
const GRANTABLE = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  "PreAuthorizedCode",
]);

/** Expired rows are swept at most this often (and looked up lazily in between). */
const SWEEP_INTERVAL_MS = 60_000;
const CLOCK_TOLERANCE_SECONDS = 15;

export class SandboxStore {
  private rows = new Map<string, Entry>();
  private sessionUids = new Map<string, string>();
  private userCodes = new Map<string, string>();
  private grants = new Map<string, Set<string>>();
  private lastSweep = Date.now();

  get(key: string): Record<string, unknown> | undefined {
    const entry = this.rows.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  set(key: string, payload: Record<string, unknown>, expiresIn: number | undefined, grantId: string | undefined) {
    this.sweep();
    this.delete(key);
    // Kept a little past expiry (oidc-provider's clock tolerance); the models check `exp` themselves.
    const expiresAt = typeof expiresIn === "number" ? Date.now() + (expiresIn + CLOCK_TOLERANCE_SECONDS) * 1000 : Infinity;
    this.rows.set(key, { payload, expiresAt });
    if (grantId) {
      const members = this.grants.get(grantId) ?? new Set<string>();
      members.add(key);
      this.grants.set(grantId, members);
    }
  }

  delete(key: string) {
    const entry = this.rows.get(key);
    if (!entry) return;
    this.rows.delete(key);
    const { uid, userCode, grantId } = entry.payload;
    if (typeof uid === "string" && this.sessionUids.get(uid) === key) this.sessionUids.delete(uid);
    if (typeof userCode === "string" && this.userCodes.get(userCode) === key) this.userCodes.delete(userCode);
    if (typeof grantId === "string") {
      const members = this.grants.get(grantId);
      members?.delete(key);
      if (members?.size === 0) this.grants.delete(grantId);
    }
  }

  indexSessionUid(uid: string, key: string) {
    this.sessionUids.set(uid, key);
  }

  indexUserCode(userCode: string, key: string) {
    this.userCodes.set(userCode, key);
  }

  bySessionUid(uid: string) {
    const key = this.sessionUids.get(uid);
    return key === undefined ? undefined : this.get(key);
  }

  byUserCode(userCode: string) {
    const key = this.userCodes.get(userCode);
    return key === undefined ? undefined : this.get(key);
  }

  revokeGrant(grantId: string) {
    for (const key of [...(this.grants.get(grantId) ?? [])]) this.delete(key);
    this.grants.delete(grantId);
  }

  clear() {
    this.rows.clear();
    this.sessionUids.clear();
    this.userCodes.clear();
    this.grants.clear();
  }

  private sweep() {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, entry] of this.rows) if (entry.expiresAt <= now) this.delete(key);
  }
}

/** An oidc-provider adapter factory (`configuration.adapter`) over one store. */
export function sandboxAdapter(store: SandboxStore) {
  return (model: string) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
        const grantId = GRANTABLE.has(model) && typeof payload.grantId === "string" ? payload.grantId : undefined;
        store.set(key(id), payload, expiresIn, grantId);
        if (model === "Session" && typeof payload.uid === "string") store.indexSessionUid(payload.uid, key(id));
        if (typeof payload.userCode === "string") store.indexUserCode(payload.userCode, key(id));
      },
      async find(id: string) {
        return store.get(key(id));
      },
      async findByUid(uid: string) {
        return store.bySessionUid(uid);
      },
      async findByUserCode(userCode: string) {
        return store.byUserCode(userCode);
      },
      async consume(id: string) {
        const payload = store.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId: string) {
        store.revokeGrant(grantId);
      },
    };
  };
}
