import { complete } from "./complete";
import { invalidRequest } from "./errors";
import { type ApiList, type ObjectType, type SandboxObjects, TYPE_OF_OBJECT } from "./objects";
import type { SandboxStore } from "./store";

/*
 * Turns a stored object into Stripe's answer: drops the sandbox's "_" fields and the includable
 * fields nobody asked for, then applies expand[] ("latest_invoice.payments.data.payment.payment_intent").
 * Expansion is driven by the object's shape: EXPANDABLE lists, per shape, which fields hold the id of
 * which stored type; nested plain objects are addressed as `shape.field`.
 */

export type JsonObject = Record<string, unknown>;

/** Fields Stripe answers only when expanded. */
const INCLUDABLE: Record<string, readonly string[]> = {
  invoice: ["payments", "confirmation_secret"],
  checkout_session: ["line_items"],
};

const EXPANDABLE: Record<string, Record<string, ObjectType>> = {
  "customer.invoice_settings": { default_payment_method: "payment_method" },
  payment_method: { customer: "customer" },
  price: { product: "product" },
  promotion_code: { customer: "customer" },
  "promotion_code.promotion": { coupon: "coupon" },
  discount: { customer: "customer", promotion_code: "promotion_code" },
  "discount.source": { coupon: "coupon" },
  subscription: {
    customer: "customer",
    default_payment_method: "payment_method",
    latest_invoice: "invoice",
    discounts: "discount",
  },
  invoice: { customer: "customer", default_payment_method: "payment_method", discounts: "discount" },
  "invoice.parent.subscription_details": { subscription: "subscription" },
  invoice_payment: { invoice: "invoice" },
  "invoice_payment.payment": { payment_intent: "payment_intent" },
  line_item: { discounts: "discount" },
  payment_intent: { customer: "customer", payment_method: "payment_method", latest_charge: "charge" },
  charge: { customer: "customer", payment_intent: "payment_intent" },
  refund: { charge: "charge", payment_intent: "payment_intent" },
  checkout_session: {
    customer: "customer",
    subscription: "subscription",
    payment_intent: "payment_intent",
    invoice: "invoice",
    setup_intent: "setup_intent",
  },
  setup_intent: { customer: "customer", payment_method: "payment_method" },
};

const MAX_DEPTH = 4;

function cannotExpand(path: string) {
  return invalidRequest(`This property cannot be expanded (${path}).`, { param: "expand" });
}

function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The shape of a nested object: its stored type, its own `object` name, or `owner.field`. */
function shapeOf(value: JsonObject, fallback: string): string {
  const name = value.object;
  if (typeof name !== "string") return fallback;
  return (TYPE_OF_OBJECT as Record<string, string>)[name] ?? name;
}

/** "a.b", "a", "c" → { a: ["b", ""], c: [""] } */
function groupByFirst(paths: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const path of paths) {
    if (!path) continue;
    const dot = path.indexOf(".");
    const field = dot < 0 ? path : path.slice(0, dot);
    const rest = dot < 0 ? "" : path.slice(dot + 1);
    groups.set(field, [...(groups.get(field) ?? []), rest]);
  }
  return groups;
}

function checkDepth(paths: readonly string[]): void {
  for (const path of paths) {
    if (path.split(".").filter((part) => part !== "data").length > MAX_DEPTH) {
      throw invalidRequest(`You cannot expand more than ${MAX_DEPTH} levels of a property (${path}).`, { param: "expand" });
    }
  }
}

export class Renderer {
  constructor(private readonly store: SandboxStore) {}

  /** The answer for a stored object, with `expand` applied. */
  async render<K extends ObjectType>(type: K, object: SandboxObjects[K], expand: readonly string[] = []): Promise<JsonObject> {
    checkDepth(expand);
    return complete(await this.renderShape(type, clone(object) as unknown as JsonObject, expand, ""));
  }

  /** A list answer; `data.x` entries of expand apply to every item. */
  async renderList<K extends ObjectType>(
    type: K,
    page: { data: SandboxObjects[K][]; has_more: boolean },
    url: string,
    expand: readonly string[] = [],
  ): Promise<ApiList<JsonObject>> {
    checkDepth(expand);
    const itemPaths = expand.map((path) => {
      if (!path.startsWith("data.")) throw cannotExpand(path);
      return path.slice("data.".length);
    });
    const data = await Promise.all(page.data.map((item) => this.render(type, item, itemPaths)));
    return { object: "list", data, has_more: page.has_more, url };
  }

  private async renderShape(shape: string, value: JsonObject, paths: readonly string[], where: string): Promise<JsonObject> {
    const groups = groupByFirst(paths);
    for (const field of INCLUDABLE[shape] ?? []) if (!groups.has(field)) delete value[field];
    for (const key of Object.keys(value)) if (key.startsWith("_")) delete value[key];
    for (const [field, rests] of groups) {
      const path = where ? `${where}.${field}` : field;
      if (!(field in value)) throw cannotExpand(path);
      value[field] = await this.expandField(shape, field, value[field], rests, path);
    }
    return value;
  }

  private async expandField(owner: string, field: string, current: unknown, rests: string[], path: string): Promise<unknown> {
    const target = EXPANDABLE[owner]?.[field];
    const includable = INCLUDABLE[owner]?.includes(field) ?? false;
    const deeper = rests.filter((rest) => rest !== "");
    if (current === null || current === undefined) return null;
    if (typeof current === "string") {
      if (!target) throw cannotExpand(path);
      return this.load(target, current, deeper, path);
    }
    if (Array.isArray(current)) {
      if (!target) throw cannotExpand(path);
      return Promise.all(current.map((item) => (typeof item === "string" ? this.load(target, item, deeper, path) : item)));
    }
    if (!isPlainObject(current)) throw cannotExpand(path);
    if (current.object === "list" && Array.isArray(current.data)) {
      if (!includable && deeper.length === 0) throw cannotExpand(path);
      const itemPaths = deeper.map((rest) => {
        if (!rest.startsWith("data.")) throw cannotExpand(`${path}.${rest}`);
        return rest.slice("data.".length);
      });
      const items = current.data.filter(isPlainObject);
      current.data = await Promise.all(
        items.map((item) => this.renderShape(shapeOf(item, `${owner}.${field}`), item, itemPaths, `${path}.data`)),
      );
      return current;
    }
    if (!includable && deeper.length === 0) throw cannotExpand(path);
    return this.renderShape(shapeOf(current, `${owner}.${field}`), current, deeper, path);
  }

  private async load(type: ObjectType, id: string, paths: string[], path: string): Promise<unknown> {
    const found = await this.store.get(type, id);
    if (!found) return id;
    return this.renderShape(type, clone(found) as unknown as JsonObject, paths, path);
  }
}
