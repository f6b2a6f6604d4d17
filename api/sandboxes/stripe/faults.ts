import { z } from "zod";

/*
 * The sandbox's fault switch, for tests of how the product survives a failing gateway (decision 012).
 * A fault answers the next `times` REST requests that match `method` and `path` badly:
 * - `when: "before"`: without doing the work (the gateway never saw the request);
 * - `when: "after"`: after doing it — the object is made, its idempotency key keeps the answer and its
 *   webhooks are sent — and then the answer is lost: the case where the gateway charged and we do not know.
 * `kind` is how: `error` (500 api_error, which the SDK retries), `reset` (the connection is destroyed)
 * or `delay` (the answer waits `delayMs`, past the SDK's timeout, or until a test calls releaseDelays(): a
 * hung call the test ends when it has seen what it came for, instead of waiting the delay out).
 * `deferWebhooks` holds every webhook as a failed delivery that the next advance() sends: the webhook that
 * arrives later;
 * `holdWebhooksMs` keeps such a delivery from being retried that long (as Stripe waits before a retry),
 * so that another process's advance() does not send it at once.
 * Tests set it through `sandbox.faults`; a spawned process through STRIPE_SANDBOX_FAULTS (JSON of
 * FaultPlan), read only in sandbox mode.
 */

export const FaultSchema = z.object({
  method: z.enum(["GET", "POST", "DELETE"]).optional(),
  /** An Express-style path: /v1/invoices/:id/pay. */
  path: z.string().regex(/^\/v1\//),
  when: z.enum(["before", "after"]),
  kind: z.enum(["error", "reset", "delay"]),
  times: z.number().int().positive().default(1),
  delayMs: z.number().int().nonnegative().default(30_000),
});

export const FaultPlanSchema = z.object({
  faults: z.array(FaultSchema).default([]),
  deferWebhooks: z.boolean().default(false),
  holdWebhooksMs: z.number().int().nonnegative().default(0),
});

export type Fault = z.input<typeof FaultSchema>;
export type FaultPlan = z.input<typeof FaultPlanSchema>;
type ArmedFault = z.output<typeof FaultSchema> & { pattern: RegExp; left: number };

function pathPattern(path: string): RegExp {
  const escaped = path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${escaped.join("/")}$`);
}

export class SandboxFaults {
  private armed: ArmedFault[] = [];
  /** The delay faults' waits under way (wait), each ended by its timer or by releaseDelays(). */
  private readonly delayed = new Set<() => void>();
  /** While true, webhooks are held as failed deliveries for the next advance(). */
  deferWebhooks = false;
  /** How long a held delivery waits before an advance() may send it. */
  holdWebhooksMs = 0;

  constructor(plan?: FaultPlan) {
    if (plan) this.apply(plan);
  }

  apply(plan: FaultPlan): void {
    const parsed = FaultPlanSchema.parse(plan);
    for (const fault of parsed.faults) this.inject(fault);
    this.deferWebhooks = parsed.deferWebhooks;
    this.holdWebhooksMs = parsed.holdWebhooksMs;
  }

  inject(fault: Fault): void {
    const parsed = FaultSchema.parse(fault);
    this.armed.push({ ...parsed, pattern: pathPattern(parsed.path), left: parsed.times });
  }

  clear(): void {
    this.armed = [];
    this.deferWebhooks = false;
    this.holdWebhooksMs = 0;
  }

  /** A delay fault's wait: `ms`, or less if releaseDelays() is called first. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.delayed.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.delayed.add(end);
    });
  }

  /** Ends every delay under way now: the hung calls answer as they would once their delay was over. */
  releaseDelays(): void {
    for (const end of [...this.delayed]) end();
  }

  /** The fault that takes this request, if any (counted down). */
  take(method: string, path: string): z.output<typeof FaultSchema> | undefined {
    const found = this.armed.find((f) => f.left > 0 && (!f.method || f.method === method) && f.pattern.test(path));
    if (!found) return undefined;
    found.left -= 1;
    this.armed = this.armed.filter((f) => f.left > 0);
    return found;
  }
}

/** STRIPE_SANDBOX_FAULTS: the plan as JSON, or undefined. A bad value stops the start (config.ts). */
export function parseFaultPlan(json: string | undefined): FaultPlan | undefined {
  if (!json) return undefined;
  return FaultPlanSchema.parse(JSON.parse(json));
}
