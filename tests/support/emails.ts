import { randomUUID } from "node:crypto";

/**
 * A fresh address: `${prefix}-` and 8 hex digits at example.com. logs.spec.ts checks that no prefix the tests
 * pass can spell a test password (test addresses may be logged; passwords must not be).
 */
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
}
