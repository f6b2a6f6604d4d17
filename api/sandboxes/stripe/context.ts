import type { Clock } from "../../platform/clock";
import { DEFAULT_TAX_RATES, type TaxRates } from "../../platform/tax-rates";
import type { WriterLock } from "./lock";
import { type SandboxObject, type SandboxObjects, type SbEvent, TYPE_OF_OBJECT } from "./objects";
import type { JsonObject, Renderer } from "./render";
import type { SandboxStore } from "./store";
import { unixSeconds } from "./time";
import type { EventType, Webhooks } from "./webhooks";

/*
 * What an operation works with: the store, the time it happens at (business time, unix seconds)
 * and emit(), which records an event to be delivered once the operation is over.
 */
export class Ops {
  constructor(
    readonly store: SandboxStore,
    readonly renderer: Renderer,
    /** Business time of this operation, unix seconds. */
    readonly now: number,
    readonly publicUrl: string,
    private readonly webhooks: Webhooks,
    private readonly outbox: SbEvent[],
    /** PaymentMethods the customer has just authenticated (3-D Secure) for what this operation charges. */
    readonly authenticated: Set<string> = new Set(),
    /** Stripe Tax's rates as the stand-in has them (tax.ts): the product's table. */
    readonly taxRates: TaxRates = DEFAULT_TAX_RATES,
  ) {}

  /** The same operation, happening at another time (a renewal happens at its period's end). */
  at(now: number): Ops {
    return new Ops(this.store, this.renderer, now, this.publicUrl, this.webhooks, this.outbox, this.authenticated, this.taxRates);
  }

  get nowDate(): Date {
    return new Date(this.now * 1000);
  }

  /** The answer shape of an object (no expansions). */
  render(object: SandboxObject): Promise<JsonObject> {
    const type = TYPE_OF_OBJECT[object.object];
    return this.renderer.render(type, object as SandboxObjects[typeof type]);
  }

  /** Records an event about `object` as it is now; it is delivered when the operation is over. */
  async emit(type: EventType, object: SandboxObject, previousAttributes?: Record<string, unknown>): Promise<void> {
    const rendered = await this.render(object);
    this.outbox.push(await this.webhooks.record(type, rendered, this.now, previousAttributes));
  }
}

/** The earlier values of the top-level fields that differ (an updated event's previous_attributes). */
export function previousAttributes(before: object, after: object): Record<string, unknown> {
  const old = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(now)) {
    if (key.startsWith("_")) continue;
    if (JSON.stringify(old[key]) !== JSON.stringify(now[key])) changed[key] = old[key] ?? null;
  }
  return changed;
}

/**
 * Runs operations: one at a time under the writer lock, then delivers the events they recorded
 * (outside the lock, since the product's webhook handler calls the API back). Events recorded before
 * an operation failed (a declined payment) are delivered too.
 */
export class Runner {
  constructor(
    private readonly store: SandboxStore,
    private readonly renderer: Renderer,
    private readonly lock: WriterLock,
    private readonly webhooks: Webhooks,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    private readonly taxRates: TaxRates = DEFAULT_TAX_RATES,
  ) {}

  async run<T>(operation: (ops: Ops) => Promise<T>): Promise<T> {
    const outbox: SbEvent[] = [];
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      const value = await this.lock.run(() => {
        const ops = new Ops(this.store, this.renderer, unixSeconds(this.clock.now()), this.publicUrl, this.webhooks, outbox, new Set(), this.taxRates);
        return operation(ops);
      });
      outcome = { ok: true, value };
    } catch (error) {
      outcome = { ok: false, error };
    }
    await this.webhooks.deliver(outbox);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }
}
