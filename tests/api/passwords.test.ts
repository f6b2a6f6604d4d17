import { describe, expect, it } from "vitest";
import { PASSWORD_COST, PasswordHasher, productPasswords } from "../../api/identity/passwords";
import { uniqueEmail } from "../support/emails";
import { databases, TEST_PASSWORDS, useApi } from "./harness";

// The product hashes passwords with argon2id at OWASP's minimum; the API's other files run a cheaper cost
// (tests/api/harness.ts TEST_PASSWORDS) that only code can choose. Here: the product's cost is OWASP's, and a
// hash made at another cost is replaced by the product's at the next right sign-in.

/** The cost a stored hash was made with, from its PHC string. */
function costOf(hash: string): Record<string, number> {
  const params = hash.split("$")[3] ?? "";
  return Object.fromEntries(params.split(",").map((pair) => [pair.split("=")[0]!, Number(pair.split("=")[1])]));
}

describe("password hashing", () => {
  it("the product's hasher is argon2id at OWASP's minimum: 19 MiB, 2 iterations, 1 lane", async () => {
    expect(PASSWORD_COST).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    const hash = await productPasswords.hash("a password");
    expect(hash).toMatch(/^\$argon2id\$v=19\$/);
    expect(costOf(hash)).toEqual({ m: 19456, t: 2, p: 1 });
    expect(await productPasswords.verify(hash, "a password")).toBe(true);
    expect(await productPasswords.verify(hash, "another password")).toBe(false);
    expect(productPasswords.needsRehash(hash)).toBe(false);
  });

  it("a missing or malformed hash never matches, and its dummy check is made at the hasher's cost", async () => {
    for (const hasher of [productPasswords, TEST_PASSWORDS, new PasswordHasher({ memoryCost: 2048, timeCost: 1, parallelism: 1 })]) {
      expect(await hasher.verify(null, "")).toBe(false);
      expect(await hasher.verify(null, "any password")).toBe(false);
      expect(await hasher.verify("not a hash", "not a hash")).toBe(false);
      expect(hasher.needsRehash("not a hash")).toBe(false);
    }
    expect(costOf(await TEST_PASSWORDS.hash("x"))).toEqual({ m: 1024, t: 1, p: 1 });
    expect(TEST_PASSWORDS.needsRehash(await productPasswords.hash("x"))).toBe(true);
  });
});

describe.each(databases())("a password hash made at another cost ($name)", (kind) => {
  const t = useApi(kind, { productPasswords: true });

  it("is replaced by one at the product's cost at the next right sign-in, and only then", async () => {
    const email = uniqueEmail("rehash");
    const cheap = await TEST_PASSWORDS.hash("the-password");
    const id = await t.createUser({ email, password: null });
    await t.db.updateTable("users").set({ password_hash: cheap }).where("id", "=", id).execute();
    const stored = async () => (await t.db.selectFrom("users").select("password_hash").where("id", "=", id).executeTakeFirstOrThrow()).password_hash!;

    const wrong = await t.post("/api/user/login", { json: { email, password: "not-the-password" } });
    expect(wrong.status).toBe(401);
    expect(await stored()).toBe(cheap);

    await t.login(email, "the-password");
    const upgraded = await stored();
    expect(upgraded).not.toBe(cheap);
    expect(costOf(upgraded)).toEqual({ m: 19456, t: 2, p: 1 });
    await t.login(email, "the-password");
    expect(await stored()).toBe(upgraded);
  });
});
