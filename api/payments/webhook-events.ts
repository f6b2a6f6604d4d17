import { type Database, isUniqueViolation } from "../platform/db";
import { isRefusal } from "../platform/errors";

/**
 * Whether a gateway's webhook event was handled already (webhook_events). An event is recorded once its
 * handler has finished, never before: an instance killed in the middle of one leaves no record, so the
 * delivery the gateway sends again is handled (found by `npm run test:deploy`; tests/api/webhook-retry.test.ts).
 * Two deliveries at once both run the handlers, which are idempotent; the first to finish records it.
 */
export async function isHandled(deps: { db: Database }, eventId: string): Promise<boolean> {
  return (await deps.db.selectFrom("webhook_events").select("id").where("id", "=", eventId).executeTakeFirst()) !== undefined;
}

/** Records a handled event (once: another delivery may have finished first). */
export async function recordHandled(deps: { db: Database }, event: { id: string; source: string; type: string }): Promise<void> {
  try {
    await deps.db.insertInto("webhook_events").values({ ...event, received_at: new Date().toISOString() }).execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

/**
 * Handles one verified delivery of a gateway's event, once: an event recorded as handled is not handled
 * again; it is recorded only when `handle` has finished. A refusal (a DomainError) is the event's answer
 * for good (a declined capture, a second subscription given back): the gateway need not retry, so the
 * delivery succeeds, but it is not recorded, so a later delivery is looked at again. Any other failure
 * leaves no record and is thrown: the gateway's retry is handled.
 */
export async function handleWebhookOnce(
  deps: { db: Database },
  event: { id: string; source: string; type: string },
  handle: () => Promise<void>,
  onRefusal?: (error: Error) => void,
): Promise<void> {
  if (await isHandled(deps, event.id)) return;
  try {
    await handle();
  } catch (error) {
    if (isRefusal(error)) {
      onRefusal?.(error);
      return;
    }
    throw error;
  }
  await recordHandled(deps, event);
}
