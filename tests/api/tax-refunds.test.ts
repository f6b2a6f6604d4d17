import { describe, expect, it } from "vitest";
import { vatShareOf } from "../../api/payments/tax";
import { pdfText } from "../support/pdf-text";
import { databases, useApi } from "./harness";
import { buyByCrypto, customer } from "./payment-support";

// Credit notes of crypto refunds (issue 35, docs/decisions/061): staff mark a sent crypto refund done
// (POST /api/admin/refund-requests/{id}/done); the payment is refunded and its credit note, referring to its
// invoice, takes back the invoice's VAT share. Card refunds record it the same way.

const ADMIN_TOKEN = "tax-refunds-admin-token-0123456789";
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe("the VAT share of a refund", () => {
  it("is all of the VAT for a full refund, else half-up on the cent in proportion", () => {
    expect(vatShareOf(1189, 190, 1189)).toBe(190);
    expect(vatShareOf(1189, 190, 595)).toBe(95);
    expect(vatShareOf(1189, 0, 1189)).toBe(0);
    expect(vatShareOf(0, 0, 0)).toBe(0);
  });
});

describe.each(databases({ postgres: "a crypto refund's credit note is issued in the transaction that marks it refunded, on both dialects" }))(
  "credit notes of crypto refunds ($name)",
  (kind) => {
    const t = useApi(kind, { env: { ADMIN_API_TOKEN: ADMIN_TOKEN } });

    it("a German crypto payment refunded by staff: the credit note refers to its invoice and takes back net and VAT; once", async () => {
      const who = await customer(t, "crypto-refund-de@example.com");
      expect((await t.request("PUT", "/api/account/billing-details", { token: who.token, json: { country: "DE", name: "Anna Krypto" } })).status).toBe(200);
      await buyByCrypto(t, who, { productId: "vpn_1_month", planId: 1, amount: "11.89" });
      const history = async () => (await t.post("/api/billing/transactions", { token: who.token, json: {} })).body.data.transactions;
      const [paid] = await history();
      expect(paid).toMatchObject({ status: "paid", amount_cents: 1189, net_cents: 999, tax: { amount_cents: 190, label: "VAT 19 % (Germany)" } });

      const address = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
      const requested = await t.post(`/api/billing/transactions/${paid.id}/refund`, { token: who.token, json: { refund_address: address } });
      expect(requested.status, requested.text).toBe(200);
      const list = await t.get("/api/admin/refund-requests", { headers: admin });
      const request = list.body.data.refund_requests.find((r: { transaction_id: number }) => r.transaction_id === paid.id);
      expect(request).toMatchObject({ amount_cents: 1189 });
      // No credit note while the request is open.
      expect(await t.db.selectFrom("credit_notes").selectAll().execute()).toEqual([]);

      expect((await t.post(`/api/admin/refund-requests/${request.id}/done`, { json: {} })).status).toBe(401);
      expect((await t.post(`/api/admin/refund-requests/${request.id + 1000}/done`, { headers: admin, json: {} })).status).toBe(404);
      const done = await t.post(`/api/admin/refund-requests/${request.id}/done`, { headers: admin, json: { reference: "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16" } });
      expect(done.status, done.text).toBe(200);
      const refund = done.body.data.refund;
      expect(refund).toMatchObject({ id: request.id, transaction_id: paid.id, status: "refunded", amount_cents: 1189, credit_note_number: expect.stringMatching(/^CN-\d{4}-\d{6}$/) });

      const notes = await t.db.selectFrom("credit_notes").select(["number", "amount_cents", "net_cents", "vat_cents"]).execute();
      expect(notes).toEqual([{ number: refund.credit_note_number, amount_cents: 1189, net_cents: 999, vat_cents: 190 }]);
      const [after] = await history();
      expect(after).toMatchObject({ status: "refunded", refund_status: "refunded", credit_note_number: refund.credit_note_number });
      expect(await t.get("/api/admin/refund-requests", { headers: admin }).then((r) => r.body.data.refund_requests.some((x: { id: number }) => x.id === request.id))).toBe(false);

      const pdf = await fetch(`${t.baseUrl}/api/credit-note/${paid.id}/bitpay`, { headers: { authorization: `Bearer ${who.token}` } });
      expect(pdf.status).toBe(200);
      const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
      expect(text).toContain(refund.credit_note_number);
      expect(text).toMatch(new RegExp(`For invoice\\s+${paid.invoice_number}`));
      expect(text).toMatch(/Net\s+-\$9\.99/);
      expect(text).toMatch(/VAT 19 % \(Germany\)\s+-\$1\.90/);
      expect(text).toMatch(/Total credited \(USD\)\s+-\$11\.89/);

      const mails = (await t.mailbox(who.email)).filter((m) => m.subject === "Your VPN payment was refunded");
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(`We sent the refund to ${address}. Its credit note is ${refund.credit_note_number}`);

      // Again: the same answer, no second credit note, no second email.
      const again = await t.post(`/api/admin/refund-requests/${request.id}/done`, { headers: admin, json: {} });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data.refund).toEqual(refund);
      expect(await t.db.selectFrom("credit_notes").select("number").execute()).toHaveLength(1);
      expect((await t.mailbox(who.email)).filter((m) => m.subject === "Your VPN payment was refunded")).toHaveLength(1);
    }, 60_000);
  },
);
