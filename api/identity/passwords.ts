import { randomBytes } from "node:crypto";
import { argon2id, hash, needsRehash, verify } from "argon2";

/** argon2id's cost: memory in KiB, iterations, lanes. */
export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's recommended minimum for argon2id: 19 MiB memory, 2 iterations, 1 lane. What the product runs. */
export const PASSWORD_COST: PasswordCost = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

/**
 * A fixed hash at PASSWORD_COST (of a random password nobody knows). Verifying against it when the email is
 * unknown or the account has no password makes those answers take as long as a wrong password, so timing
 * does not reveal which accounts exist.
 */
const DUMMY_HASH =
  "$argon2id$v=19$m=19456,p=1,t=2$wqK3U2UDSaaDirXQDODGDQ$oJTCtagqFcVuuD+wROArhpzF2v0EEdxVCozwwnZ5PWY";

/**
 * Hashes and checks passwords (accounts' and VPN service credentials') with argon2id at one cost. The API
 * holds one (ApiContext.passwords): the product's, at PASSWORD_COST, unless the code that builds the API gives
 * another. Only code can: no setting lowers it. The API's tests give a cheaper one (tests/api/harness.ts),
 * and their timing checks the product's.
 */
export class PasswordHasher {
  private readonly options: PasswordCost & { type: typeof argon2id };
  /** The dummy hash at this cost (verifying takes as long as verifying a real one). */
  private readonly dummyHash: Promise<string>;

  constructor(cost: PasswordCost = PASSWORD_COST) {
    this.options = { type: argon2id, ...cost };
    const productCost =
      cost.memoryCost === PASSWORD_COST.memoryCost && cost.timeCost === PASSWORD_COST.timeCost && cost.parallelism === PASSWORD_COST.parallelism;
    this.dummyHash = productCost ? Promise.resolve(DUMMY_HASH) : hash(randomBytes(32).toString("hex"), this.options);
    // Awaited at each use; an unhandled rejection here would end the process before that.
    this.dummyHash.catch(() => undefined);
  }

  hash(password: string): Promise<string> {
    return hash(password, this.options);
  }

  /** True when `password` matches `passwordHash`. A null hash always fails, after a dummy verify. */
  async verify(passwordHash: string | null, password: string): Promise<boolean> {
    if (!passwordHash) {
      await verify(await this.dummyHash, password).catch(() => false);
      return false;
    }
    try {
      return await verify(passwordHash, password);
    } catch {
      // A malformed stored hash is a failed sign-in, not a crash.
      return false;
    }
  }

  /** True when a stored hash was made at another cost and should be replaced after sign-in. */
  needsRehash(passwordHash: string): boolean {
    try {
      return needsRehash(passwordHash, this.options);
    } catch {
      return false;
    }
  }
}

/** The product's hasher, at PASSWORD_COST. */
export const productPasswords = new PasswordHasher();
