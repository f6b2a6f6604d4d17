import { describe, expect, it } from "vitest";
import { claimNotice } from "../../api/platform/notices";
import { databases, useApi } from "./harness";

describe.each(databases({ postgres: "a claim under a parallel burst" }))("notices are claimed once ($name)", (kind) => {
  const t = useApi(kind);

  it("lets one of a parallel burst claim a notice, and no later caller", async () => {
    const now = new Date();
    const key = `test:${now.getTime()}`;
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimNotice(t.db, { key, kind: "test", userId: null, now })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimNotice(t.db, { key, kind: "test", userId: null, now })).toBe(false);
    const rows = await t.db.selectFrom("notices").selectAll().where("notice_key", "=", key).execute();
    expect(rows).toHaveLength(1);
  });
});
