import type { Clock } from "../../platform/clock";
import { SerialQueue } from "../bitpay/queue";
import { notFound, PayPalApiError, unprocessable } from "./errors";
import {
  type BillingCycle,
  type CaptureRecord,
  type CycleState,
  type Funding,
  type OrderRecord,
  type PlanRecord,
  type ProductRecord,
  type RefundRecord,
  type RevisionState,
  type SaleRecord,
  type SubscriptionRecord,
  addInterval,
  captureView,
  centsOf,
  currentCycle,
  newId,
  orderApprovalUrl,
  orderView,
  paypalTime,
  revisionApprovalUrl,
  saleView,
  subscriptionView,
} from "./model";
import { type Change, type ObjectType, type PayPalStore, type Row, type Stored, row } from "./store";
import { type Event, type Notifier, type Signer, deliveryRows } from "./webhooks";

/*
 * What the REST API, the approval pages and advance() do to the sandbox's objects. Writes run on a
 * queue (one at a time in this process) and commit with a compare-and-set (other instances); their
 * webhooks are delivered after the queue is free (the product's handler may call the REST API back)
 * and before the caller answers.
 */

export interface NewOrder {
  amount_cents: number;
  reference_id?: string;
  description?: string;
  custom_id?: string;
  invoice_id?: string;
  soft_descriptor?: string;
  payment_source_paypal: boolean;
  return_url?: string;
  cancel_url?: string;
  brand_name?: string;
}

/** A plan as POST /v1/billing/plans gives it: prices without PayPal's version and times. */
export type NewPlan = Omit<PlanRecord, "id" | "create_time" | "update_time" | "usage_type" | "billing_cycles"> & {
  billing_cycles: (Omit<BillingCycle, "pricing_scheme"> & { pricing_scheme?: { fixed_price: { currency_code: string; value: string } } })[];
};

export interface NewSubscription {
  plan_id: string;
  start_time?: string;
  quantity?: string;
  custom_id?: string;
  override?: { billing_cycles?: { sequence: number; price?: string | null; total_cycles?: number }[]; payment_failure_threshold?: number };
  return_url?: string;
  cancel_url?: string;
  brand_name?: string;
}

type Outcome<T> = { value: T; rows: Row[] };

/** A step of a subscription's life: the record after it and what it sends and stores. */
interface Step {
  sub: SubscriptionRecord;
  inserts: Row[];
  events: Event[];
}

const MAX_CATCH_UP_CYCLES = 1000;

export class PayPalService {
  private readonly queue = new SerialQueue();
  /** Where the REST API listens (links in webhook resources); set by listen(). */
  restBase = "https://api-m.sandbox.paypal.com";

  constructor(
    private readonly store: PayPalStore,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    readonly publicUrl: string,
    private readonly signer: Signer,
  ) {}

  nowMs(): number {
    return this.clock.now().getTime();
  }
  private now(): string {
    return paypalTime(this.nowMs());
  }

  /** Runs a write on the queue, then delivers the webhook rows it stored. */
  private async write<T>(task: () => Promise<Outcome<T>>): Promise<T> {
    const outcome = await this.queue.run(task);
    await this.notifier.deliver(outcome.rows.filter((r) => r.type === "delivery"));
    return outcome.value;
  }

  private deliveries(events: readonly Event[]): Row[] {
    return deliveryRows(events, this.signer, this.nowMs(), this.restBase);
  }

  private async must<T>(type: ObjectType, id: string): Promise<Stored<T>> {
    const found = await this.store.get<T>(type, id);
    if (!found) throw notFound();
    return found;
  }

  /** A stored PayPal-Request-Id answer: the id of the object it made. */
  private async replayed(key: string | undefined): Promise<string | undefined> {
    if (!key) return undefined;
    return (await this.store.get<{ id: string }>("request", key))?.record.id;
  }
  private requestRow(key: string | undefined, id: string): Row[] {
    return key ? [row("request", key, { id }, this.nowMs())] : [];
  }

  /* -------------------------------------------------------------- orders */

  async createOrder(input: NewOrder, requestId?: string): Promise<{ order: OrderRecord; created: boolean }> {
    const key = requestId && `request:order:${requestId}`;
    return this.write<{ order: OrderRecord; created: boolean }>(async () => {
      const earlier = await this.replayed(key);
      if (earlier) return { value: { order: (await this.must<OrderRecord>("order", earlier)).record, created: false }, rows: [] };
      const now = this.now();
      const order: OrderRecord = {
        id: newId.order(),
        status: input.payment_source_paypal ? "PAYER_ACTION_REQUIRED" : "CREATED",
        intent: "CAPTURE",
        amount_cents: input.amount_cents,
        reference_id: input.reference_id ?? "default",
        description: input.description,
        custom_id: input.custom_id,
        invoice_id: input.invoice_id,
        soft_descriptor: input.soft_descriptor,
        payment_source_paypal: input.payment_source_paypal,
        return_url: input.return_url,
        cancel_url: input.cancel_url,
        brand_name: input.brand_name,
        create_time: now,
        update_time: now,
      };
      const inserts = [row("order", order.id, order, this.nowMs()), ...this.requestRow(key, order.id)];
      if (!(await this.store.commit({ inserts }))) {
        // Another instance stored an answer for this request id first.
        const other = await this.replayed(key);
        if (!other) throw new Error("PayPal sandbox: could not store the order");
        return { value: { order: (await this.must<OrderRecord>("order", other)).record, created: false }, rows: [] };
      }
      return { value: { order, created: true }, rows: [] };
    });
  }

  async getOrder(id: string): Promise<{ order: OrderRecord; capture?: CaptureRecord } | undefined> {
    const order = (await this.store.get<OrderRecord>("order", id))?.record;
    if (!order) return undefined;
    const capture = order.capture_id ? (await this.store.get<CaptureRecord>("capture", order.capture_id))?.record : undefined;
    return { order, capture };
  }

  orderResource(order: OrderRecord, capture?: CaptureRecord) {
    return orderView(order, capture, this.restBase, this.publicUrl);
  }

  /** The approval page's Approve: the buyer approves the order paying with `funding`. */
  async approveOrder(id: string, funding: Funding): Promise<OrderRecord | undefined> {
    return this.write(async () => {
      const stored = await this.store.get<OrderRecord>("order", id);
      if (!stored) return { value: undefined, rows: [] };
      const order = stored.record;
      // Approved once: a second post changes nothing, unless the buyer is choosing again after a decline.
      const choosingAgain = order.status === "APPROVED" && order.funding === "declined";
      if ((order.status === "APPROVED" && !choosingAgain) || order.status === "COMPLETED") return { value: order, rows: [] };
      const next: OrderRecord = { ...order, status: "APPROVED", funding, outcome: "approved", update_time: this.now() };
      const rows = this.deliveries([{ type: "CHECKOUT.ORDER.APPROVED", resource: this.orderResource(next) }]);
      if (!(await this.store.commit({ updates: [{ id, expected: stored.data, record: next }], inserts: rows }))) {
        return { value: (await this.store.get<OrderRecord>("order", id))?.record, rows: [] };
      }
      return { value: next, rows };
    });
  }

  /** The approval page's Cancel: nothing changes at PayPal but where the buyer goes. */
  async cancelOrderApproval(id: string): Promise<OrderRecord | undefined> {
    return this.write(async () => {
      const stored = await this.store.get<OrderRecord>("order", id);
      if (!stored) return { value: undefined, rows: [] };
      if (stored.record.outcome) return { value: stored.record, rows: [] };
      const next: OrderRecord = { ...stored.record, outcome: "cancelled" };
      await this.store.commit({ updates: [{ id, expected: stored.data, record: next }] });
      return { value: (await this.store.get<OrderRecord>("order", id))?.record, rows: [] };
    });
  }

  async captureOrder(id: string, requestId?: string): Promise<{ order: OrderRecord; capture: CaptureRecord; created: boolean }> {
    const key = requestId && `request:capture:${id}:${requestId}`;
    return this.write<{ order: OrderRecord; capture: CaptureRecord; created: boolean }>(async () => {
      const stored = await this.must<OrderRecord>("order", id);
      const order = stored.record;
      if ((await this.replayed(key)) && order.capture_id) {
        const capture = (await this.must<CaptureRecord>("capture", order.capture_id)).record;
        return { value: { order, capture, created: false }, rows: [] };
      }
      if (order.status === "COMPLETED") {
        throw unprocessable("ORDER_ALREADY_CAPTURED", "Order already captured. If 'intent=CAPTURE' only one capture per order is allowed.");
      }
      if (order.status !== "APPROVED") {
        throw unprocessable(
          "ORDER_NOT_APPROVED",
          "Payer has not yet approved the Order for payment. Please redirect the payer to the 'rel':'approve' url returned as part of the HATEOAS links within the Create Order call or provide a valid payment_source in the request.",
        );
      }
      if (order.funding === "declined") {
        // As PayPal: a `redirect` link takes the buyer back to the approval page to choose another way to pay.
        throw new PayPalApiError(
          422,
          [
            {
              issue: "INSTRUMENT_DECLINED",
              description: "The instrument presented  was either declined by the processor or bank, or it can't be used for this payment.",
            },
          ],
          undefined,
          [{ href: orderApprovalUrl(this.publicUrl, id), rel: "redirect", method: "GET" }],
        );
      }
      const now = this.now();
      const capture: CaptureRecord = {
        id: newId.capture(),
        order_id: id,
        status: "COMPLETED",
        amount_cents: order.amount_cents,
        custom_id: order.custom_id,
        invoice_id: order.invoice_id,
        create_time: now,
        update_time: now,
      };
      const next: OrderRecord = { ...order, status: "COMPLETED", capture_id: capture.id, update_time: now };
      const deliveries = this.deliveries([{ type: "PAYMENT.CAPTURE.COMPLETED", resource: captureView(capture, this.restBase) }]);
      const inserts = [row("capture", capture.id, capture, this.nowMs(), id), ...this.requestRow(key, id), ...deliveries];
      if (!(await this.store.commit({ updates: [{ id, expected: stored.data, record: next }], inserts }))) {
        // Another instance captured it meanwhile.
        throw unprocessable("ORDER_ALREADY_CAPTURED", "Order already captured. If 'intent=CAPTURE' only one capture per order is allowed.");
      }
      return { value: { order: next, capture, created: true }, rows: deliveries };
    });
  }

  async getCapture(id: string): Promise<CaptureRecord | undefined> {
    return (await this.store.get<CaptureRecord>("capture", id))?.record;
  }

  /* -------------------------------------------------------------- refunds */

  /** Refunds a capture (v2) or a sale (v1) in full; a second refund -> 422 / 400 as PayPal. */
  async refund(
    kind: "capture" | "sale",
    id: string,
    opts: { amount_cents?: number; invoice_id?: string; note_to_payer?: string },
    requestId?: string,
  ): Promise<{ refund: RefundRecord; created: boolean }> {
    const key = requestId && `request:refund:${id}:${requestId}`;
    return this.write<{ refund: RefundRecord; created: boolean }>(async () => {
      const earlier = await this.replayed(key);
      if (earlier) return { value: { refund: (await this.must<RefundRecord>("refund", earlier)).record, created: false }, rows: [] };
      const stored = await this.must<CaptureRecord | SaleRecord>(kind, id);
      const parent = stored.record;
      const refunded = kind === "capture" ? (parent as CaptureRecord).status === "REFUNDED" : (parent as SaleRecord).state === "refunded";
      if (refunded) {
        if (kind === "capture") throw unprocessable("CAPTURE_FULLY_REFUNDED", "The capture has already been fully refunded");
        throw new PayPalApiError(400, [], { name: "TRANSACTION_ALREADY_REFUNDED", message: "Requested transaction has already been fully refunded." });
      }
      if (kind === "sale" && (parent as SaleRecord).state !== "completed") {
        throw new PayPalApiError(400, [], { name: "TRANSACTION_REFUSED", message: "The request was refused." });
      }
      if (opts.amount_cents !== undefined && opts.amount_cents !== parent.amount_cents) {
        // The sandbox refunds in full only (the product never refunds part of a payment).
        if (opts.amount_cents > parent.amount_cents) {
          if (kind === "sale") throw new PayPalApiError(400, [], { name: "REFUND_EXCEEDED_TRANSACTION_AMOUNT", message: "Refund amount exceeded transaction amount." });
          throw unprocessable("REFUND_AMOUNT_EXCEEDED", "The refund amount must be less than or equal to the capture amount that has not yet been refunded.");
        }
        if (kind === "sale") throw new PayPalApiError(400, [], { name: "PARTIAL_REFUND_NOT_ALLOWED", message: "Partial refund is not allowed (sandbox: full refunds only)." });
        throw unprocessable("PARTIAL_REFUND_NOT_ALLOWED", "Partial refunds are not supported by the sandbox: refund the full amount.");
      }
      const now = this.now();
      const refund: RefundRecord = {
        id: newId.refund(),
        parent_id: id,
        kind,
        amount_cents: parent.amount_cents,
        invoice_id: opts.invoice_id,
        note_to_payer: opts.note_to_payer,
        create_time: now,
      };
      const next =
        kind === "capture"
          ? { ...(parent as CaptureRecord), status: "REFUNDED", refund_id: refund.id, update_time: now }
          : { ...(parent as SaleRecord), state: "refunded", refund_id: refund.id, update_time: now };
      const inserts = [row("refund", refund.id, refund, this.nowMs(), id), ...this.requestRow(key, refund.id)];
      if (!(await this.store.commit({ updates: [{ id, expected: stored.data, record: next }], inserts }))) {
        if (kind === "capture") throw unprocessable("CAPTURE_FULLY_REFUNDED", "The capture has already been fully refunded");
        throw new PayPalApiError(400, [], { name: "TRANSACTION_ALREADY_REFUNDED", message: "Requested transaction has already been fully refunded." });
      }
      return { value: { refund, created: true }, rows: [] };
    });
  }

  async getRefund(id: string): Promise<RefundRecord | undefined> {
    return (await this.store.get<RefundRecord>("refund", id))?.record;
  }

  async getSale(id: string): Promise<SaleRecord | undefined> {
    return (await this.store.get<SaleRecord>("sale", id))?.record;
  }

  /* -------------------------------------------------------------- products and plans */

  async createProduct(input: Omit<ProductRecord, "id" | "create_time" | "update_time"> & { id?: string }): Promise<ProductRecord> {
    return this.write(async () => {
      const now = this.now();
      const product: ProductRecord = { ...input, id: input.id ?? newId.product(), create_time: now, update_time: now };
      if (!(await this.store.commit({ inserts: [row("product", product.id, product, this.nowMs())] }))) {
        throw unprocessable("DUPLICATE_RESOURCE_IDENTIFIER", "The value of the field should be unique.", "/id");
      }
      return { value: product, rows: [] };
    });
  }

  async getProduct(id: string): Promise<ProductRecord | undefined> {
    return (await this.store.get<ProductRecord>("product", id))?.record;
  }

  async listProducts(): Promise<ProductRecord[]> {
    return (await this.store.list<ProductRecord>("product")).map((s) => s.record);
  }

  async createPlan(input: NewPlan): Promise<PlanRecord> {
    return this.write(async () => {
      if (!(await this.store.get("product", input.product_id))) {
        throw unprocessable("INVALID_PRODUCT_ID", "The product id is invalid or does not exist.", "/product_id");
      }
      const now = this.now();
      const plan: PlanRecord = {
        id: newId.plan(),
        product_id: input.product_id,
        name: input.name,
        status: input.status,
        description: input.description,
        usage_type: "LICENSED",
        billing_cycles: input.billing_cycles.map(({ pricing_scheme, ...cycle }) => ({
          ...cycle,
          ...(pricing_scheme ? { pricing_scheme: { version: 1, fixed_price: pricing_scheme.fixed_price, create_time: now, update_time: now } } : {}),
        })),
        payment_preferences: input.payment_preferences,
        taxes: input.taxes,
        quantity_supported: input.quantity_supported,
        create_time: now,
        update_time: now,
      };
      await this.store.commit({ inserts: [row("plan", plan.id, plan, this.nowMs(), plan.product_id)] });
      return { value: plan, rows: [] };
    });
  }

  async getPlan(id: string): Promise<PlanRecord | undefined> {
    return (await this.store.get<PlanRecord>("plan", id))?.record;
  }

  async listPlans(productId?: string): Promise<PlanRecord[]> {
    return (await this.store.list<PlanRecord>("plan", productId)).map((s) => s.record);
  }

  private async changePlan(id: string, change: (plan: PlanRecord, now: string) => PlanRecord): Promise<void> {
    return this.write(async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const stored = await this.must<PlanRecord>("plan", id);
        const next = change(stored.record, this.now());
        if (await this.store.commit({ updates: [{ id, expected: stored.data, record: next }] })) return { value: undefined, rows: [] };
      }
      throw new Error("PayPal sandbox: the plan keeps changing");
    });
  }

  async setPlanStatus(id: string, status: "ACTIVE" | "INACTIVE"): Promise<void> {
    await this.changePlan(id, (plan, now) => {
      if (status === "ACTIVE" && plan.status === "ACTIVE") throw unprocessable("PLAN_STATUS_INVALID", "Invalid plan status for activate action; plan status should be either created or inactive.");
      if (status === "INACTIVE" && plan.status !== "ACTIVE") throw unprocessable("PLAN_STATUS_INVALID", "Invalid plan status for deactivate action; plan status should be active.");
      return { ...plan, status, update_time: now };
    });
  }

  /** New prices for cycles; subscriptions without their own price pay them from their next cycle, as at PayPal. */
  async updatePricing(id: string, schemes: readonly { billing_cycle_sequence: number; value: string; currency_code: string }[]): Promise<void> {
    await this.changePlan(id, (plan, now) => {
      const cycles = plan.billing_cycles.map((cycle) => ({ ...cycle }));
      for (const scheme of schemes) {
        const cycle = cycles.find((c) => c.sequence === scheme.billing_cycle_sequence);
        if (!cycle) throw unprocessable("INVALID_BILLING_CYCLE_SEQUENCE", "The provided billing cycle sequence is not available.");
        if (!cycle.pricing_scheme) throw unprocessable("INVALID_PRICING_SCHEME", "The new pricing scheme should be of the same type as that of the old one.");
        if (scheme.currency_code !== cycle.pricing_scheme.fixed_price?.currency_code) {
          throw unprocessable("CURRENCY_MISMATCH", "The currency code is different from the plan's currency code.");
        }
        cycle.pricing_scheme = {
          ...cycle.pricing_scheme,
          version: cycle.pricing_scheme.version + 1,
          fixed_price: { currency_code: scheme.currency_code, value: scheme.value },
          update_time: now,
        };
      }
      return { ...plan, billing_cycles: cycles, update_time: now };
    });
  }

  /* -------------------------------------------------------------- subscriptions */

  async createSubscription(input: NewSubscription, requestId?: string): Promise<{ sub: SubscriptionRecord; created: boolean }> {
    const key = requestId && `request:subscription:${requestId}`;
    return this.write<{ sub: SubscriptionRecord; created: boolean }>(async () => {
      const earlier = await this.replayed(key);
      if (earlier) return { value: { sub: (await this.must<SubscriptionRecord>("subscription", earlier)).record, created: false }, rows: [] };
      const plan = (await this.store.get<PlanRecord>("plan", input.plan_id))?.record;
      if (!plan) throw unprocessable("INVALID_RESOURCE_ID", "Requested resource ID was not found.", "/plan_id");
      if (plan.status !== "ACTIVE") throw unprocessable("PLAN_STATUS_INVALID", "Invalid plan status for subscription create action; plan status should be active.", "/plan_id");
      const cycles: CycleState[] = plan.billing_cycles
        .slice()
        .sort((a, b) => a.sequence - b.sequence)
        .map((cycle) => ({
          sequence: cycle.sequence,
          tenure_type: cycle.tenure_type,
          total_cycles: cycle.total_cycles,
          frequency: cycle.frequency,
          completed: 0,
        }));
      for (const override of input.override?.billing_cycles ?? []) {
        const cycle = cycles.find((c) => c.sequence === override.sequence);
        if (!cycle) throw unprocessable("INVALID_BILLING_CYCLE_SEQUENCE", "The provided billing cycle sequence is not available.", "/plan/billing_cycles");
        if (override.price !== undefined) cycle.override_cents = override.price === null ? null : centsOf(override.price);
        if (override.total_cycles !== undefined) cycle.total_cycles = override.total_cycles;
      }
      const now = this.now();
      const sub: SubscriptionRecord = {
        id: newId.subscription(),
        plan_id: plan.id,
        ba_token: newId.baToken(),
        status: "APPROVAL_PENDING",
        status_update_time: now,
        custom_id: input.custom_id,
        quantity: input.quantity ?? "1",
        start_time: input.start_time ?? now,
        create_time: now,
        update_time: now,
        return_url: input.return_url,
        cancel_url: input.cancel_url,
        brand_name: input.brand_name,
        plan_overridden: input.override !== undefined,
        cycles,
        payment_preferences: {
          ...plan.payment_preferences,
          ...(input.override?.payment_failure_threshold === undefined ? {} : { payment_failure_threshold: input.override.payment_failure_threshold }),
        },
        subscribed: false,
        failed_payments_count: 0,
        outstanding_cents: 0,
      };
      const inserts = [row("subscription", sub.id, sub, this.nowMs(), sub.ba_token), ...this.requestRow(key, sub.id)];
      if (!(await this.store.commit({ inserts }))) {
        const other = await this.replayed(key);
        if (!other) throw new Error("PayPal sandbox: could not store the subscription");
        return { value: { sub: (await this.must<SubscriptionRecord>("subscription", other)).record, created: false }, rows: [] };
      }
      return { value: { sub, created: true }, rows: [] };
    });
  }

  async getSubscription(id: string): Promise<SubscriptionRecord | undefined> {
    return (await this.store.get<SubscriptionRecord>("subscription", id))?.record;
  }

  async subscriptionByToken(baToken: string): Promise<SubscriptionRecord | undefined> {
    return (await this.store.list<SubscriptionRecord>("subscription", baToken))[0]?.record;
  }

  async subscriptionResource(sub: SubscriptionRecord) {
    const plan = await this.getPlan(sub.plan_id);
    return subscriptionView(sub, this.restBase, this.publicUrl, plan?.billing_cycles ?? []);
  }
  private view(sub: SubscriptionRecord, plan: PlanRecord | undefined) {
    return subscriptionView(sub, this.restBase, this.publicUrl, plan?.billing_cycles ?? []);
  }

  async sales(subscriptionId: string): Promise<SaleRecord[]> {
    return (await this.store.list<SaleRecord>("sale", subscriptionId)).map((s) => s.record);
  }

  /** Changes a subscription under the queue with a compare-and-set, retried when another writer won. */
  private async changeSubscription(
    find: () => Promise<Stored<SubscriptionRecord> | undefined>,
    step: (sub: SubscriptionRecord, plan: PlanRecord | undefined) => Step | undefined,
  ): Promise<SubscriptionRecord | undefined> {
    return this.write(async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const stored = await find();
        if (!stored) return { value: undefined, rows: [] };
        const plan = await this.getPlan(stored.record.plan_id);
        const result = step(stored.record, plan);
        if (!result) return { value: stored.record, rows: [] };
        const change: Change = { updates: [{ id: stored.record.id, expected: stored.data, record: result.sub }], inserts: [...result.inserts] };
        const deliveries = this.deliveries(result.events);
        if (await this.store.commit({ ...change, inserts: [...(change.inserts ?? []), ...deliveries] })) {
          return { value: result.sub, rows: deliveries };
        }
      }
      throw new Error("PayPal sandbox: the subscription keeps changing");
    });
  }

  /** The approval page's Approve: ACTIVE, the first cycle charged at once (unless it starts later). */
  async approveSubscription(baToken: string, funding: Funding): Promise<SubscriptionRecord | undefined> {
    return this.changeSubscription(
      () => this.store.list<SubscriptionRecord>("subscription", baToken).then((found) => found[0]),
      (sub, plan) => {
        if (sub.status !== "APPROVAL_PENDING") return undefined;
        const nowMs = this.nowMs();
        const now = paypalTime(nowMs);
        const startsLater = Date.parse(sub.start_time) > nowMs;
        const active: SubscriptionRecord = {
          ...sub,
          status: "ACTIVE",
          status_update_time: now,
          update_time: now,
          funding,
          outcome: "approved",
          subscribed: true,
          start_time: startsLater ? sub.start_time : now,
          next_billing_time: startsLater ? sub.start_time : now,
        };
        const activated: Step = { sub: active, inserts: [], events: [{ type: "BILLING.SUBSCRIPTION.ACTIVATED", resource: this.view(active, plan) }] };
        return this.chargeDue(activated, plan, nowMs, true);
      },
    );
  }

  async cancelSubscriptionApproval(baToken: string): Promise<SubscriptionRecord | undefined> {
    return this.changeSubscription(
      () => this.store.list<SubscriptionRecord>("subscription", baToken).then((found) => found[0]),
      (sub) => (sub.outcome ? undefined : { sub: { ...sub, outcome: "cancelled" }, inserts: [], events: [] }),
    );
  }

  /**
   * POST /v1/billing/subscriptions/{id}/revise with a plan_id: a change of plan under the same product, which
   * the buyer must consent to on its approval page (a PayPal-funded subscription). Until then nothing changes;
   * a new revise replaces one not yet answered.
   */
  async reviseSubscription(
    id: string,
    input: { plan_id: string; override?: NewSubscription["override"]; return_url?: string; cancel_url?: string; brand_name?: string },
  ): Promise<{ sub: SubscriptionRecord; revision: RevisionState }> {
    const current = await this.getSubscription(id);
    if (!current) throw notFound();
    const plan = (await this.store.get<PlanRecord>("plan", input.plan_id))?.record;
    if (!plan) throw unprocessable("INVALID_RESOURCE_ID", "Requested resource ID was not found.", "/plan_id");
    if (plan.status !== "ACTIVE") throw unprocessable("PLAN_STATUS_INVALID", "Invalid plan status for subscription revise action; plan status should be active.", "/plan_id");
    const before = await this.getPlan(current.plan_id);
    if (before && before.product_id !== plan.product_id) {
      throw unprocessable("PLAN_PRODUCT_NOT_COMPATIBLE", "The old and the new plans should be for the same product.", "/plan_id");
    }
    const cycles: CycleState[] = plan.billing_cycles
      .slice()
      .sort((a, b) => a.sequence - b.sequence)
      .map((cycle) => ({ sequence: cycle.sequence, tenure_type: cycle.tenure_type, total_cycles: cycle.total_cycles, frequency: cycle.frequency, completed: 0 }));
    for (const override of input.override?.billing_cycles ?? []) {
      const cycle = cycles.find((c) => c.sequence === override.sequence);
      if (!cycle) throw unprocessable("INVALID_BILLING_CYCLE_SEQUENCE", "The provided billing cycle sequence is not available.", "/plan/billing_cycles");
      if (override.price !== undefined) cycle.override_cents = override.price === null ? null : centsOf(override.price);
      if (override.total_cycles !== undefined) cycle.total_cycles = override.total_cycles;
    }
    let made: RevisionState | undefined;
    const sub = await this.changeSubscription(
      () => this.store.get<SubscriptionRecord>("subscription", id),
      (stored) => {
        if (stored.status !== "ACTIVE") throw statusInvalid("revise", "active");
        made = {
          plan_id: plan.id,
          ba_token: newId.baToken(),
          cycles,
          plan_overridden: input.override !== undefined,
          return_url: input.return_url,
          cancel_url: input.cancel_url,
          brand_name: input.brand_name,
          create_time: this.now(),
        };
        return { sub: { ...stored, revision: made, update_time: this.now() }, inserts: [], events: [] };
      },
    );
    if (!sub || !made) throw notFound();
    return { sub, revision: made };
  }

  revisionApprovalUrl(sub: SubscriptionRecord, revision: RevisionState): string {
    return revisionApprovalUrl(this.publicUrl, sub.id, revision.ba_token);
  }

  /** The revise's approval page answered: Approve puts the subscription on the new plan from its next billing; Cancel changes nothing. */
  async answerRevision(id: string, baToken: string, approve: boolean): Promise<SubscriptionRecord | undefined> {
    return this.changeSubscription(
      () => this.store.get<SubscriptionRecord>("subscription", id),
      (sub, plan) => {
        const revision = sub.revision;
        if (!revision || revision.ba_token !== baToken || revision.outcome === "approved") return undefined;
        const now = this.now();
        if (!approve) return { sub: { ...sub, revision: { ...revision, outcome: "cancelled" } }, inserts: [], events: [] };
        if (sub.status !== "ACTIVE") throw statusInvalid("revise", "active");
        const revised: SubscriptionRecord = {
          ...sub,
          plan_id: revision.plan_id,
          cycles: revision.cycles,
          plan_overridden: revision.plan_overridden,
          update_time: now,
          revision: { ...revision, outcome: "approved" },
        };
        return { sub: revised, inserts: [], events: [{ type: "BILLING.SUBSCRIPTION.UPDATED", resource: this.view(revised, plan) }] };
      },
    );
  }

  /** Suspend, activate (after a suspension) or cancel, as the REST API asks. */
  async setSubscriptionStatus(id: string, action: "suspend" | "activate" | "cancel", reason: string): Promise<void> {
    const found = await this.changeSubscription(
      () => this.store.get<SubscriptionRecord>("subscription", id),
      (sub, plan) => {
        const nowMs = this.nowMs();
        const now = paypalTime(nowMs);
        const changed = { ...sub, status_change_note: reason, status_update_time: now, update_time: now };
        if (action === "suspend") {
          if (sub.status !== "ACTIVE") throw statusInvalid("suspend", "active");
          const next: SubscriptionRecord = { ...changed, status: "SUSPENDED" };
          return { sub: next, inserts: [], events: [{ type: "BILLING.SUBSCRIPTION.SUSPENDED", resource: this.view(next, plan) }] };
        }
        if (action === "activate") {
          if (sub.status !== "SUSPENDED") throw statusInvalid("activate", "suspended");
          // Billing resumes at the next billing time still ahead: missed cycles are not charged.
          let nextBilling = sub.next_billing_time;
          const cycle = currentCycle(sub);
          for (let i = 0; cycle && nextBilling && Date.parse(nextBilling) < nowMs && i < MAX_CATCH_UP_CYCLES; i++) {
            nextBilling = addInterval(nextBilling, cycle.frequency);
          }
          const next: SubscriptionRecord = { ...changed, status: "ACTIVE", next_billing_time: nextBilling };
          return { sub: next, inserts: [], events: [{ type: "BILLING.SUBSCRIPTION.RE-ACTIVATED", resource: this.view(next, plan) }] };
        }
        if (sub.status !== "ACTIVE" && sub.status !== "SUSPENDED") throw statusInvalid("cancel", "active or suspended");
        const next: SubscriptionRecord = { ...changed, status: "CANCELLED", next_billing_time: undefined };
        return { sub: next, inserts: [], events: [{ type: "BILLING.SUBSCRIPTION.CANCELLED", resource: this.view(next, plan) }] };
      },
    );
    if (!found) throw notFound();
  }

  /** Charges every cycle of an ACTIVE subscription whose billing time has come, in order. */
  private chargeDue(start: Step, plan: PlanRecord | undefined, nowMs: number, firstIsInitial: boolean): Step {
    let step = start;
    let initial = firstIsInitial;
    for (let i = 0; i < MAX_CATCH_UP_CYCLES; i++) {
      const sub = step.sub;
      if (sub.status !== "ACTIVE" || !sub.next_billing_time || Date.parse(sub.next_billing_time) > nowMs) break;
      step = this.chargeCycle(step, plan, initial);
      initial = false;
    }
    return step;
  }

  /** One billing cycle at its billing time: a sale, a failed payment (and maybe suspension), or expiry. */
  private chargeCycle(step: Step, plan: PlanRecord | undefined, initial: boolean): Step {
    const sub = step.sub;
    const when = sub.next_billing_time as string;
    const whenMs = Date.parse(when);
    const cycle = currentCycle(sub);
    if (!cycle) {
      const expired: SubscriptionRecord = { ...sub, status: "EXPIRED", status_update_time: when, update_time: when, next_billing_time: undefined };
      return { sub: expired, inserts: step.inserts, events: [...step.events, { type: "BILLING.SUBSCRIPTION.EXPIRED", resource: this.view(expired, plan) }] };
    }
    const planPrice = plan?.billing_cycles.find((c) => c.sequence === cycle.sequence)?.pricing_scheme?.fixed_price?.value;
    const price = cycle.override_cents !== undefined ? (cycle.override_cents ?? 0) : planPrice ? centsOf(planPrice) : 0;
    const cycles = sub.cycles.map((c) => (c.sequence === cycle.sequence ? { ...c, completed: c.completed + 1 } : c));
    const base: SubscriptionRecord = { ...sub, cycles, update_time: when, next_billing_time: addInterval(when, cycle.frequency) };
    const due = price + (sub.payment_preferences.auto_bill_outstanding ? sub.outstanding_cents : 0);
    if (due === 0) return { ...step, sub: base }; // a free trial cycle: nothing to charge
    // 'Card that fails renewals' pays the subscription's first payment (at approval or a later start_time), no other.
    const first = initial || (!sub.last_payment && sub.failed_payments_count === 0);
    const pays = sub.funding === "balance" || sub.funding === undefined || (sub.funding === "fails_renewals" && first);
    const sale: SaleRecord = {
      id: newId.sale(),
      subscription_id: sub.id,
      state: pays ? "completed" : "declined",
      amount_cents: pays ? due : price,
      custom: sub.custom_id,
      create_time: when,
      update_time: when,
    };
    const inserts = [...step.inserts, row("sale", sale.id, sale, whenMs, sub.id)];
    if (pays) {
      const paid: SubscriptionRecord = {
        ...base,
        last_payment: { amount_cents: due, time: when },
        failed_payments_count: 0,
        outstanding_cents: sub.payment_preferences.auto_bill_outstanding ? 0 : sub.outstanding_cents,
      };
      return { sub: paid, inserts, events: [...step.events, { type: "PAYMENT.SALE.COMPLETED", resource: saleView(sale, this.restBase) }] };
    }
    const failures = sub.failed_payments_count + 1;
    const threshold = sub.payment_preferences.payment_failure_threshold;
    const suspend = threshold > 0 && failures >= threshold;
    const failed: SubscriptionRecord = {
      ...base,
      failed_payments_count: failures,
      outstanding_cents: sub.outstanding_cents + price,
      last_failed_payment: { amount_cents: price, time: when },
      ...(suspend ? { status: "SUSPENDED" as const, status_update_time: when, status_change_note: "Payment failure threshold reached" } : {}),
    };
    const events: Event[] = [...step.events, { type: "BILLING.SUBSCRIPTION.PAYMENT.FAILED", resource: this.view(failed, plan) }];
    if (suspend) events.push({ type: "BILLING.SUBSCRIPTION.SUSPENDED", resource: this.view(failed, plan) });
    return { sub: failed, inserts, events };
  }

  /** advance(): every ACTIVE subscription whose next billing time has come (business clock) is billed. */
  async renewDue(): Promise<void> {
    const nowMs = this.nowMs();
    const due = (await this.store.list<SubscriptionRecord>("subscription", undefined, '"status":"ACTIVE"'))
      .map((s) => s.record)
      .filter((sub) => sub.status === "ACTIVE" && sub.next_billing_time && Date.parse(sub.next_billing_time) <= nowMs);
    for (const candidate of due) {
      // Re-read under the queue: a cancel or another instance's renewal meanwhile wins.
      await this.changeSubscription(
        () => this.store.get<SubscriptionRecord>("subscription", candidate.id),
        (sub, plan) => {
          if (sub.status !== "ACTIVE" || !sub.next_billing_time || Date.parse(sub.next_billing_time) > nowMs) return undefined;
          return this.chargeDue({ sub, inserts: [], events: [] }, plan, nowMs, false);
        },
      );
    }
  }
}

function statusInvalid(action: string, expected: string): PayPalApiError {
  return unprocessable("SUBSCRIPTION_STATUS_INVALID", `Invalid subscription status for ${action} action; subscription status should be ${expected}.`);
}
