import type { OffsetStore } from "../platform/clock";
import type { Database } from "../platform/db";
import { prepare } from "../platform/db/prepared";

/* The sandbox_clock row (migration 0002): the test clock's offset, shared by every instance. */

const ROW = "business";

// Read before every API request in sandbox mode (platform/clock.ts SharedOffsetClock): prepared once.
const offsetRow = prepare((db) => db.selectFrom("sandbox_clock").select("offset_ms").where("id", "=", ROW));

export function sandboxClockStore(db: Database): OffsetStore {
  return {
    async read() {
      const row = await offsetRow.executeTakeFirst(db, {});
      return Number(row?.offset_ms ?? 0);
    },
    async add(ms) {
      // One UPDATE: concurrent advances from several instances all count.
      const row = await db
        .updateTable("sandbox_clock")
        .set((eb) => ({ offset_ms: eb("offset_ms", "+", Math.round(ms)) }))
        .where("id", "=", ROW)
        .returning("offset_ms")
        .executeTakeFirstOrThrow();
      return Number(row.offset_ms);
    },
  };
}
