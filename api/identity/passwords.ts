import { argon2id, hash, needsRehash, verify } from "argon2";

/** argon2id with OWASP's recommended minimum: 19 MiB memory, 2 iterations, 1 lane. */
export const PASSWORD_HASH_OPTIONS = {
  type: argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

/**
 * A fixed hash (of a random password nobody knows) with the same parameters. Verifying against it
 * when the email is unknown or the account has no password makes those answers take as long as a
 * wrong password, so timing does not reveal which accounts exist.
 */
const DUMMY_HASH =
  "$argon2id$v=19$m=19456,p=1,t=2$wqK3U2UDSaaDirXQDODGDQ$oJTCtagqFcVuuD+wROArhpzF2v0EEdxVCozwwnZ5PWY";

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASH_OPTIONS);
}

/** True when `password` matches `passwordHash`. A null hash always fails, after a dummy verify. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    await verify(DUMMY_HASH, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    // A malformed stored hash is a failed sign-in, not a crash.
    return false;
  }
}

/** True when a stored hash was made with other parameters and should be replaced after sign-in. */
export function passwordNeedsRehash(passwordHash: string): boolean {
  try {
    return needsRehash(passwordHash, PASSWORD_HASH_OPTIONS);
  } catch {
    return false;
  }
}
