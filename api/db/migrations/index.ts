import type { Migration } from "kysely";
import * as m0001 from "./0001_init";

/**
 * Every migration, by name, in order. An explicit object (not a folder scan) because the API is
 * bundled by esbuild. Add new migrations here.
 */
export const migrations: Record<string, Migration> = {
  "0001_init": m0001,
};
