import { GOOD_CARD, OTHER_GOOD_CARD } from "../support/cards";
import { hasJavaScript, latestMail, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";
import { pdfText } from "../support/pdf-text";
import { buyMonthByCard } from "./refund-support";

// The 30-day money-back guarantee (issue 12, decision 016): a card purchase is refunded from the
// billing history through the server-rendered refund step; the payment reads 'Refunded' and the
// account is Free; a crypto payment leaves a refund address and reads 'Refund requested'. Without JavaScript
// and with it. (The 31-day case moves the test clock: it is in
// the clock projects, in clock.spec.ts.)

test("buy a plan by card, request the refund: 'Refunded', the subscription ends, the account is Free", async ({ page, request, login }, testInfo) => {
  // One card per project: the guarantee is once per card too (issue 17), and both projects share the server.
  const user = await buyMonthByCard(page, testInfo, login, hasJavaScript(testInfo) ? OTHER_GOOD_CARD : GOOD_CARD);
  await open(page, "/billing", testInfo);
  const row = page.getByRole("row").filter({ hasText: "1 Month" });
  await expect(row.getByRole("cell", { name: "Paid", exact: true })).toBeVisible();
  await row.getByRole("link", { name: "Request refund" }).click();

  const dialog = page.getByRole("dialog", { name: "Request a refund" });
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/\/billing\?refund=\d+$/);
  await expect(dialog.getByText("The payment is returned in full", { exact: false })).toBeVisible();
  await expect(dialog.getByText("Your subscription ends now.")).toBeVisible();
  await expect(dialog.getByText("Your account goes Free.")).toBeVisible();
  await dialog.getByRole("button", { name: "Refund my payment" }).click();

  await expect(page.getByText("Your payment has been refunded.")).toBeVisible();
  await expect(page).toHaveURL(/\/billing$/);
  await expect(row.getByRole("cell", { name: "Refunded", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Request refund" })).toHaveCount(0);
  // The refunded plan ended now: said so, with the way back (docs/decisions/050).
  await expect(page.getByText(/^Your plan ended on \d{2} \w+, \d{4}\./)).toBeVisible();
  await expect(page.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
  // The refund's credit note (issue 35): a PDF of its own series, naming the invoice it corrects.
  const creditNote = row.getByRole("link", { name: "Download credit note" });
  await expect(creditNote).toHaveAttribute("href", /^\/billing\/credit-note\/\d+\/stripe$/);
  const note = await page.request.get((await creditNote.getAttribute("href"))!);
  expect(note.status()).toBe(200);
  expect(note.headers()["content-type"]).toBe("application/pdf");
  const noteText = pdfText(await note.body());
  expect(noteText).toMatch(/Credit note\s+CN-\d{4}-\d{6}/);
  expect(noteText).toMatch(/For invoice\s+INV-\d{4}-\d{6}/);
  expect(noteText).toMatch(/Total credited \(USD\)\s+-\$9\.99/);

  await open(page, "/", testInfo);
  await expect(page.getByRole("article", { name: "Subscription" }).getByText("Free", { exact: true })).toBeVisible();
  const mail = await latestMail(request, user.email, /refunded/i);
  expect(mail.text).toContain("$9.99");
  const status = await withDatabase((db) =>
    db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .select("transactions.status")
      .where("users.email", "=", user.email)
      .execute(),
  );
  expect(status).toEqual([{ status: "refunded" }]);
});

// Once (@once): after the purchase (paid in both modes by the test above) it only opens pages and posts by hand.
test("a forged refund post for a payment outside the guarantee gets a clear refusal", { tag: "@once" }, async ({ page, login }, testInfo) => {
  const user = await buyMonthByCard(page, testInfo, login);
  const transactionId = await withDatabase(async (db) => {
    const row = await db
      .selectFrom("transactions")
      .innerJoin("users", "users.id", "transactions.user_id")
      .select("transactions.id")
      .where("users.email", "=", user.email)
      .executeTakeFirstOrThrow();
    // Carried past day 30 in the data, so that the server's rules refuse it.
    await db.updateTable("transactions").set({ created_at: "2020-01-01T00:00:00.000Z" }).where("id", "=", row.id).execute();
    return row.id;
  });
  await open(page, "/billing", testInfo);
  await expect(page.getByRole("link", { name: "Request refund" })).toHaveCount(0);
  // The step itself is not offered either.
  await open(page, `/billing?refund=${transactionId}`, testInfo);
  await expect(page.getByRole("dialog", { name: "Request a refund" })).toHaveCount(0);
  await expect(page.getByText("This payment cannot be refunded.")).toBeVisible();
  // A hand-made post, as a script would send it from the page.
  const origin = new URL(page.url()).origin;
  const response = await page.request.post("/billing", {
    form: { intent: "refund", transactionId: String(transactionId) },
    headers: { Origin: origin },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(302);
  await open(page, "/billing", testInfo);
  await expect(page.getByRole("alert").filter({ hasText: "The 30-day money-back guarantee for this payment has ended." })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("cell", { name: "Paid", exact: true })).toBeVisible();
});

test("a crypto payment: the refund step asks for an address and records 'Refund requested'", async ({ page, request, login }, testInfo) => {
  const user = await login();
  await open(page, "/subscription/payment/1", testInfo);
  await page.getByText("Crypto Currencies", { exact: true }).click();
  await page.getByRole("button", { name: "Pay with Crypto" }).click();
  await page.getByRole("button", { name: "Mark as paid" }).click();
  await expect(page.getByRole("dialog", { name: "Payment Successful!" })).toBeVisible();

  await open(page, "/billing", testInfo);
  await page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("link", { name: "Request refund" }).click();
  const dialog = page.getByRole("dialog", { name: "Request a refund" });
  await expect(dialog.getByText(/Crypto payments cannot be returned automatically/)).toBeVisible();
  const address = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
  await dialog.getByLabel("Refund address").fill(address);
  await dialog.getByRole("button", { name: "Refund my payment" }).click();

  await expect(page.getByText(/Your refund request has been received/)).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "1 Month" }).getByRole("cell", { name: "Refund requested", exact: true })).toBeVisible();
  // The refunded plan ended now: said so, with the way back (docs/decisions/050).
  await expect(page.getByText(/^Your plan ended on \d{2} \w+, \d{4}\./)).toBeVisible();
  await expect(page.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
  const mail = await latestMail(request, user.email, /refund request/i);
  expect(mail.text).toContain(address);
});
