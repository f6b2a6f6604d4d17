/**
 * The product's BitPay client against the crypto sandbox: the REST API on its own loopback port,
 * driven only through the client; the invoice page through fetch like a browser without JavaScript;
 * notifications as the sandbox hands them to the product — on SQLite, and on PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, createDatabase } from "../../api/platform/db";
import {
  type BitPayClient,
  BitPayError,
  type CreateInvoiceParams,
  createBitPayClient,
  invoiceIdOfNotification,
} from "../../api/payments/bitpay/client";
import { BITPAY_SANDBOX_TOKEN, type BitPaySandbox, createBitPaySandbox } from "../../api/sandboxes/bitpay";
import { MemoryLogger, type TestDatabase, databases, listen } from "./harness";
import { TestClock } from "../support/clock";

const PORTAL = "https://portal.example.com";
const BUTTONS = { pay: "Mark as paid", expire: "Let it expire", short: "Pay short", late: "Pay late" } as const;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function expectBitPayError(error: unknown, status: number | null): BitPayError {
  expect(error).toBeInstanceOf(BitPayError);
  const bitpayError = error as BitPayError;
  expect(bitpayError.status).toBe(status);
  expect(bitpayError.message).not.toContain(BITPAY_SANDBOX_TOKEN);
  return bitpayError;
}

/** The value of the hidden `action` field of the form whose button reads `label`. */
function actionOf(html: string, label: string): string {
  const form = [...html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)].find((f) =>
    f[2]!.includes(`>${label}</button>`),
  );
  if (!form) throw new Error(`no '${label}' button`);
  return /<input type="hidden" name="action" value="([^"]+)">/.exec(form[2]!)![1]!;
}

describe.each(databases({ postgres: "notifications at once, two instances: claims in the sandbox's store" }))("BitPay client and crypto sandbox ($name)", (kind) => {
  let database: TestDatabase;
  let db: Database;
  let sandbox: BitPaySandbox;
  let bitpay: BitPayClient;
  let browserBase: string;
  let restBase: string;
  let closeRest: () => Promise<void>;
  let closeBrowser: () => Promise<void>;
  const clock = new TestClock();
  const logger = new MemoryLogger();
  /** Every notification delivered, in order. */
  const delivered: { url: string; body: string }[] = [];
  let failDeliveries = 0;
  let attempts = 0;
  let orders = 0;

  const notificationsOf = (id: string) =>
    delivered.filter((n) => invoiceIdOfNotification(n.body) === id).map((n) => JSON.parse(n.body) as Record<string, unknown>);

  function params(overrides: Partial<CreateInvoiceParams> = {}): CreateInvoiceParams {
    const orderId = `order-${++orders}`;
    return {
      price: 107.76,
      currency: "USD",
      orderId,
      itemDesc: "VPN 2 Years",
      buyerEmail: "Crypto.Buyer@example.com",
      notificationURL: `${PORTAL}/api/payments/bitpay/notify?secret=s3cret`,
      redirectURL: `${PORTAL}/subscription/payment/6?crypto=${orderId}`,
      closeURL: `${PORTAL}/subscription/payment/6?crypto_closed=${orderId}`,
      posData: JSON.stringify({ order: orderId }),
      ...overrides,
    };
  }

  /** Presses a button of the invoice page the way a browser without JavaScript does. */
  async function press(url: string, label: string): Promise<Response> {
    const page = await (await fetch(url)).text();
    return fetch(url, { method: "POST", body: new URLSearchParams({ action: actionOf(page, label) }), redirect: "manual" });
  }

  beforeAll(async () => {
    database = await kind.createMigrated();
    db = createDatabase(database.url);
    const browserApp = express();
    browserApp.use((req, res, next) => sandbox.browserRouter(req, res, next));
    browserApp.use((req, res) => void res.status(404).send(`fell through: ${req.path}`));
    const browser = await listen(browserApp);
    browserBase = `http://127.0.0.1:${browser.port}`;
    closeBrowser = browser.close;
    sandbox = createBitPaySandbox({
      db,
      clock,
      publicUrl: `${browserBase}/`,
      logger,
      async deliverNotification(url, body) {
        attempts++;
        if (failDeliveries > 0) {
          failDeliveries--;
          throw new Error(`endpoint down for ${body}`);
        }
        delivered.push({ url, body });
      },
    });
    const rest = await sandbox.listen();
    closeRest = rest.close;
    restBase = `http://127.0.0.1:${rest.port}/`;
    bitpay = createBitPayClient({ baseUrl: restBase, token: BITPAY_SANDBOX_TOKEN });
  });

  afterAll(async () => {
    await closeRest?.();
    await closeBrowser?.();
    await db?.destroy();
    await database?.drop();
  });

  it("creates an invoice and fetches it", async () => {
    const before = clock.now().getTime();
    const p = params();
    const created = await bitpay.createInvoice(p);
    expect(created.id).toMatch(/^[1-9A-HJ-NP-Za-km-z]{22}$/);
    expect(created).toEqual({
      id: created.id,
      url: `${browserBase}/dev/bitpay/invoice/${created.id}`,
      status: "new",
      price: 107.76,
      currency: "USD",
      orderId: p.orderId,
      posData: p.posData,
      invoiceTime: created.invoiceTime,
      expirationTime: created.invoiceTime + 15 * 60_000,
      currentTime: created.currentTime,
      exceptionStatus: false,
      amountPaid: 0,
      buyer: { email: "Crypto.Buyer@example.com" },
      redirectURL: p.redirectURL,
      closeURL: p.closeURL,
      notificationURL: p.notificationURL,
    });
    expect(created.invoiceTime).toBeGreaterThanOrEqual(before);
    expect(created.invoiceTime).toBeLessThanOrEqual(clock.now().getTime());

    // Business time: the clock moved, currentTime follows it.
    clock.advanceSeconds(60);
    const fetched = await bitpay.getInvoice(created.id);
    expect(fetched).toEqual({ ...created, currentTime: fetched.currentTime });
    expect(fetched.currentTime).toBeGreaterThanOrEqual(created.invoiceTime + 60_000);
    expect(notificationsOf(created.id)).toEqual([]);
  });

  it("refuses a wrong token (401), an unknown id (404) and an invalid invoice (400)", async () => {
    const stranger = createBitPayClient({ baseUrl: restBase, token: "live-token-that-is-not-the-sandbox-one" });
    const refused = expectBitPayError(await rejection(stranger.createInvoice(params())), 401);
    expect(refused.message).toContain("Unauthorized");
    expect(refused.message).not.toContain("live-token-that-is-not-the-sandbox-one");
    const created = await bitpay.createInvoice(params());
    expectBitPayError(await rejection(stranger.getInvoice(created.id)), 401);

    const missing = expectBitPayError(await rejection(bitpay.getInvoice("NoSuchInvoice1234567890")), 404);
    expect(missing.message).toBe("Object not found");
    expectBitPayError(await rejection(bitpay.getInvoice("../invoices")), 404);

    const free = expectBitPayError(await rejection(bitpay.createInvoice(params({ price: 0 }))), 400);
    expect(free.message).toBe("price: price must be greater than 0");
    expectBitPayError(await rejection(bitpay.createInvoice(params({ price: 1.234 }))), 400);
    expectBitPayError(await rejection(bitpay.createInvoice(params({ currency: "EUR" as "USD" }))), 400);
    expectBitPayError(await rejection(bitpay.createInvoice(params({ redirectURL: "javascript:alert(1)" }))), 400);
  });

  it("shows the invoice page with the amount and the four buttons", async () => {
    const invoice = await bitpay.createInvoice(params({ itemDesc: "VPN <2 Years>" }));
    const res = await fetch(invoice.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("<h1>Pay with crypto (sandbox)</h1>");
    expect(html).toContain("VPN &lt;2 Years&gt;");
    expect(html).toContain("Amount due: $107.76 USD");
    expect(html).toContain('<dd class="status">New</dd>');
    expect(html).toMatch(/<dt>Expires<\/dt><dd><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
    for (const label of Object.values(BUTTONS)) {
      expect(html).toContain(`>${label}</button>`);
      expect(actionOf(html, label)).toMatch(/^[a-z_]+$/);
    }
    expect(html).toContain(`<form method="post" action="/dev/bitpay/invoice/${invoice.id}">`);
    expect(html).not.toMatch(/<script|style=/i);
    const css = await fetch(`${browserBase}/dev/bitpay/sandbox.css`);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);

    for (const path of ["/dev/bitpay", "/dev/bitpay/invoice", "/elsewhere"]) {
      expect(await (await fetch(`${browserBase}${path}`)).text()).toBe(`fell through: ${path}`);
    }
    expect((await fetch(`${browserBase}/dev/bitpay/invoice/NoSuchInvoice1234567890`)).status).toBe(404);
  });

  it("'Mark as paid' confirms at once, notifies paid then confirmed, and returns to redirectURL", async () => {
    const p = params();
    const invoice = await bitpay.createInvoice(p);
    const back = await press(invoice.url, BUTTONS.pay);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe(p.redirectURL);

    const paid = await bitpay.getInvoice(invoice.id);
    expect(paid).toMatchObject({ status: "confirmed", exceptionStatus: false, amountPaid: 107.76 });

    const sent = delivered.filter((n) => invoiceIdOfNotification(n.body) === invoice.id);
    expect(sent.map((n) => n.url)).toEqual([p.notificationURL, p.notificationURL]);
    const bodies = notificationsOf(invoice.id);
    expect(bodies.map((b) => b.status)).toEqual(["paid", "confirmed"]);
    expect(bodies[1]).toMatchObject({
      id: invoice.id,
      url: invoice.url,
      status: "confirmed",
      price: 107.76,
      currency: "USD",
      orderId: p.orderId,
      posData: p.posData,
      exceptionStatus: false,
      invoiceTime: invoice.invoiceTime,
      expirationTime: invoice.expirationTime,
      transactionCurrency: "BTC",
      buyerFields: { buyerEmail: "Crypto.Buyer@example.com" },
    });
    expect(bodies[1]!.amountPaid).toBe((bodies[1]!.paymentTotals as { BTC: number }).BTC);
    expect(typeof bodies[1]!.currentTime).toBe("number");

    // Both notification shapes name the invoice; anything else names none.
    expect(invoiceIdOfNotification(sent[0]!.body)).toBe(invoice.id);
    expect(invoiceIdOfNotification(bodies[0])).toBe(invoice.id);
    expect(invoiceIdOfNotification({ event: { code: 1005, name: "invoice_confirmed" }, data: bodies[1] })).toBe(invoice.id);
    for (const junk of [null, "", "not json", 42, {}, { id: "" }, { id: "../x" }, { data: null }, { data: { id: 7 } }]) {
      expect(invoiceIdOfNotification(junk)).toBeNull();
    }

    const page = await (await fetch(invoice.url)).text();
    expect(page).toContain('<dd class="status">Confirmed</dd>');
    expect(page).toContain(`<a href="${p.redirectURL}">Return to the site</a>`);
    expect(page).not.toContain("<form");
  });

  it("'Let it expire' expires, notifies once, and returns to closeURL", async () => {
    const p = params();
    const invoice = await bitpay.createInvoice(p);
    const back = await press(invoice.url, BUTTONS.expire);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe(p.closeURL);
    expect(await bitpay.getInvoice(invoice.id)).toMatchObject({ status: "expired", exceptionStatus: false, amountPaid: 0 });
    expect(notificationsOf(invoice.id)).toMatchObject([{ id: invoice.id, status: "expired", amountPaid: 0 }]);
    const page = await (await fetch(invoice.url)).text();
    expect(page).toContain("This invoice expired before it was paid.");
    expect(page).toContain(`<a href="${p.closeURL}">Return to the site</a>`);
  });

  it("'Pay short' expires the invoice paidPartial with half the amount", async () => {
    const p = params();
    const invoice = await bitpay.createInvoice(p);
    const back = await press(invoice.url, BUTTONS.short);
    expect(back.headers.get("location")).toBe(p.closeURL);
    expect(await bitpay.getInvoice(invoice.id)).toMatchObject({ status: "expired", exceptionStatus: "paidPartial", amountPaid: 53.88 });
    expect(notificationsOf(invoice.id)).toMatchObject([{ status: "expired", exceptionStatus: "paidPartial" }]);
    expect(await (await fetch(invoice.url)).text()).toContain("only $53.88 USD of $107.76 USD arrived");
  });

  it("'Pay late' confirms the invoice flagged paidLate", async () => {
    const p = params({ price: 9.99 });
    const invoice = await bitpay.createInvoice(p);
    const back = await press(invoice.url, BUTTONS.late);
    expect(back.headers.get("location")).toBe(p.redirectURL);
    expect(await bitpay.getInvoice(invoice.id)).toMatchObject({ status: "confirmed", exceptionStatus: "paidLate", amountPaid: 9.99 });
    expect(notificationsOf(invoice.id).map((b) => [b.status, b.exceptionStatus])).toEqual([
      ["paid", "paidLate"],
      ["confirmed", "paidLate"],
    ]);
  });

  it("a second post changes nothing, even when two arrive at once", async () => {
    const p = params();
    const invoice = await bitpay.createInvoice(p);
    const page = await (await fetch(invoice.url)).text();
    const post = (label: string) =>
      fetch(invoice.url, { method: "POST", body: new URLSearchParams({ action: actionOf(page, label) }), redirect: "manual" });
    const both = await Promise.all([post(BUTTONS.pay), post(BUTTONS.expire)]);
    expect(both.map((r) => r.status)).toEqual([303, 303]);
    const final = await bitpay.getInvoice(invoice.id);
    const count = notificationsOf(invoice.id).length;
    expect(count).toBe(final.status === "confirmed" ? 2 : 1);

    const again = await post(BUTTONS.short);
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe(final.status === "confirmed" ? p.redirectURL : p.closeURL);
    expect(await bitpay.getInvoice(invoice.id)).toEqual({ ...final, currentTime: expect.any(Number) });
    expect(notificationsOf(invoice.id)).toHaveLength(count);

    const unknown = await fetch(invoice.url, { method: "POST", body: new URLSearchParams({ action: "refund" }), redirect: "manual" });
    expect(unknown.status).toBe(400);
  });

  it("advance() expires a new invoice once its 15 minutes have passed, once", async () => {
    const invoice = await bitpay.createInvoice(params());
    clock.advanceSeconds(14 * 60);
    await sandbox.advance();
    expect((await bitpay.getInvoice(invoice.id)).status).toBe("new");

    clock.advanceSeconds(2 * 60);
    await Promise.all([sandbox.advance(), sandbox.advance()]);
    await sandbox.advance();
    expect(await bitpay.getInvoice(invoice.id)).toMatchObject({ status: "expired", exceptionStatus: false });
    expect(notificationsOf(invoice.id)).toMatchObject([{ status: "expired" }]);
    // Its page no longer offers to pay.
    expect(await (await fetch(invoice.url)).text()).not.toContain("<form");
  });

  it("retries a failed notification on the next advance(), three times at most", async () => {
    failDeliveries = 1;
    const invoice = await bitpay.createInvoice(params());
    const back = await press(invoice.url, BUTTONS.expire);
    expect(back.status).toBe(303);
    expect(notificationsOf(invoice.id)).toEqual([]);
    const warning = logger.lines.find((line) => line.includes(invoice.id));
    expect(warning).toBe(`BitPay sandbox: notifying invoice ${invoice.id} (expired) failed; the next advance() retries it.`);
    await sandbox.advance();
    expect(notificationsOf(invoice.id)).toMatchObject([{ status: "expired" }]);
    await sandbox.advance();
    expect(notificationsOf(invoice.id)).toHaveLength(1);

    // An endpoint that stays down: the first attempt and three retries, then it gives up.
    const doomed = await bitpay.createInvoice(params());
    failDeliveries = 100;
    attempts = 0;
    await press(doomed.url, BUTTONS.expire);
    for (let i = 0; i < 5; i++) await sandbox.advance();
    expect(attempts).toBe(4);
    failDeliveries = 0;
    expect(logger.lines.some((line) => line.includes(`gave up notifying invoice ${doomed.id} (expired) after 4 attempts`))).toBe(true);
    expect(logger.lines.join("\n")).not.toContain("Crypto.Buyer@example.com");
  });

  it("keeps its state in the database: a second instance knows the invoice, and never acts twice with the first", async () => {
    const invoice = await bitpay.createInvoice(params());
    const fromSecond: string[] = [];
    const second = createBitPaySandbox({
      db,
      clock,
      publicUrl: browserBase,
      logger,
      deliverNotification: async (_url, body) => void fromSecond.push(body),
    });
    const rest = await second.listen();
    try {
      const other = createBitPayClient({ baseUrl: `http://127.0.0.1:${rest.port}`, token: BITPAY_SANDBOX_TOKEN });
      expect(await other.getInvoice(invoice.id)).toMatchObject({ id: invoice.id, status: "new", price: 107.76 });

      // Both instances expire it at once (each with its own queue): the database decides, one notification.
      clock.advanceSeconds(16 * 60);
      await Promise.all([sandbox.advance(), second.advance(), sandbox.advance(), second.advance()]);
      expect(await other.getInvoice(invoice.id)).toMatchObject({ status: "expired" });
      const all = [...delivered.map((n) => n.body), ...fromSecond].filter((body) => invoiceIdOfNotification(body) === invoice.id);
      expect(all).toHaveLength(1);
    } finally {
      await rest.close();
    }
  });

  it("reports a network failure or a timeout as BitPayError with status null", async () => {
    const closed = await listen((_req, res) => void res.end());
    await closed.close();
    const unreachable = createBitPayClient({ baseUrl: `http://127.0.0.1:${closed.port}/`, token: BITPAY_SANDBOX_TOKEN });
    const down = expectBitPayError(await rejection(unreachable.getInvoice("AnyInvoice")), null);
    expect(down.message).toMatch(/^Could not reach BitPay/);

    const silent = await listen(() => undefined);
    try {
      const slow = createBitPayClient({ baseUrl: `http://127.0.0.1:${silent.port}/`, token: BITPAY_SANDBOX_TOKEN, timeoutMs: 200 });
      const timedOut = expectBitPayError(await rejection(slow.createInvoice(params())), null);
      expect(timedOut.message).toBe("BitPay did not answer within 200 ms.");
    } finally {
      await silent.close();
    }
  });
});

describe("BitPay client mapping of live answers", () => {
  /** BitPay itself is the third party: a fetch that answers what BitPay answers. */
  function answering(status: number, body: unknown, seen: { url?: string; init?: RequestInit } = {}): typeof fetch {
    return async (input, init) => {
      seen.url = String(input);
      seen.init = init;
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    };
  }
  const live = {
    id: "Hpqc62dfE1ZjzeeH4kEycF",
    url: "https://bitpay.com/invoice?id=Hpqc62dfE1ZjzeeH4kEycF",
    status: "expired",
    price: 10,
    currency: "USD",
    invoiceTime: 1620669854224,
    expirationTime: 1620670754224,
    currentTime: 1620671313184,
    exceptionStatus: "paidPartial",
    transactionCurrency: "BTC",
    amountPaid: 8800,
    displayAmountPaid: "0.000088",
    paymentTotals: { BTC: 17600, BCH: 70100 },
    exchangeRates: { BTC: { USD: 56000 } },
    buyerProvidedEmail: "live@example.com",
    lowFeeDetected: false,
  };

  it("sends the POS request and converts amountPaid from the coin's smallest unit", async () => {
    const seen: { url?: string; init?: RequestInit } = {};
    const client = createBitPayClient({ baseUrl: "https://test.bitpay.com", token: "pos-token", fetch: answering(200, { facade: "pos/invoice", data: live }, seen) });
    const invoice = await client.getInvoice(live.id);
    expect(seen.url).toBe(`https://test.bitpay.com/invoices/${live.id}?token=pos-token`);
    expect((seen.init?.headers as Record<string, string> | undefined)?.["X-Accept-Version"]).toBe("2.0.0");
    expect(invoice).toMatchObject({ status: "expired", exceptionStatus: "paidPartial", amountPaid: 5, orderId: null, buyer: { email: "live@example.com" } });

    const noTotals = createBitPayClient({ baseUrl: "https://test.bitpay.com/", token: "t", fetch: answering(200, { data: { ...live, paymentTotals: undefined } }) });
    expect((await noTotals.getInvoice(live.id)).amountPaid).toBe(4.93);
    const bare = { ...live, transactionCurrency: undefined, amountPaid: undefined, exceptionStatus: false };
    const confirmed = createBitPayClient({ baseUrl: "https://test.bitpay.com/", token: "t", fetch: answering(200, { data: { ...bare, status: "confirmed" } }) });
    expect((await confirmed.getInvoice(live.id)).amountPaid).toBe(10);
    const unpaid = createBitPayClient({ baseUrl: "https://test.bitpay.com/", token: "t", fetch: answering(200, { data: { ...bare, status: "new" } }) });
    expect((await unpaid.getInvoice(live.id)).amountPaid).toBe(0);

    const post: { url?: string; init?: RequestInit } = {};
    const creating = createBitPayClient({ baseUrl: "https://test.bitpay.com/", token: "pos-token", fetch: answering(200, { data: { ...live, status: "new" } }, post) });
    await creating.createInvoice({
      price: 10,
      currency: "USD",
      orderId: "o-1",
      itemDesc: "VPN",
      buyerEmail: "b@example.com",
      notificationURL: "https://p.example.com/n",
      redirectURL: "https://p.example.com/r",
      closeURL: "https://p.example.com/c",
    });
    expect(post.url).toBe("https://test.bitpay.com/invoices");
    expect(JSON.parse(String(post.init?.body))).toEqual({
      token: "pos-token",
      price: 10,
      currency: "USD",
      orderId: "o-1",
      itemDesc: "VPN",
      notificationURL: "https://p.example.com/n",
      redirectURL: "https://p.example.com/r",
      closeURL: "https://p.example.com/c",
      buyer: { email: "b@example.com" },
      extendedNotifications: true,
    });
  });

  it("turns BitPay's error answers and malformed invoices into BitPayError", async () => {
    const refused = createBitPayClient({ baseUrl: "https://bitpay.com/", token: "t", fetch: answering(400, { status: "error", error: "Invalid price" }) });
    expect(expectBitPayError(await rejection(refused.getInvoice("x")), 400).message).toBe("Invalid price");
    const opaque = createBitPayClient({ baseUrl: "https://bitpay.com/", token: "t", fetch: answering(503, "down") });
    expect(expectBitPayError(await rejection(opaque.getInvoice("x")), 503).message).toBe("BitPay answered HTTP 503.");
    const odd = createBitPayClient({ baseUrl: "https://bitpay.com/", token: "t", fetch: answering(200, { data: { id: "x", status: "weird" } }) });
    expect(expectBitPayError(await rejection(odd.getInvoice("x")), 200).message).toBe("BitPay answered with an unexpected invoice.");
  });
});
