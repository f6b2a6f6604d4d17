import { type Kysely, type Migration, Migrator } from "kysely";
import * as m0001 from "./0001_sandbox_tables";
import * as m0002 from "./0002_business_clock";
import * as m0003 from "./0003_paypal_sandbox";

/**
 * The sandboxes' own migrations, by name, in order (an explicit object: the code is bundled). They
 * run only in sandbox mode, after the product's, and are recorded in a migration table of their own,
 * so the product's history never names them.
 */
export const sandboxMigrations: Record<string, Migration> = {
  "0001_sandbox_tables": m0001,
  "0002_business_clock": m0002,
  "0003_paypal_sandbox": m0003,
};

export const SANDBOX_MIGRATION_TABLE = "kysely_sandbox_migration";
export const SANDBOX_MIGRATION_LOCK_TABLE = "kysely_sandbox_migration_lock";

/** Runs every pending sandbox migration (safe from several instances at once: Kysely's migration lock). */
export async function migrateSandboxes(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => sandboxMigrations },
    migrationTableName: SANDBOX_MIGRATION_TABLE,
    migrationLockTableName: SANDBOX_MIGRATION_LOCK_TABLE,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(`Sandbox migration ${failed?.migrationName ?? ""} failed: ${reason}`.replace("  ", " "), { cause: error });
  }
}
