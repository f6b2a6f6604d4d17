import { randomUUID } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { uniqueEmail } from "../support/emails";
import { hasJavaScript, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// /help (issue 21): reachable signed out and in, the apps and the rules, and a contact form that sends the
// message to support (Reply-To the sender), a copy only to a signed-in account's own address (review issue
// 30), with its errors next to its fields. Each test runs without JavaScript and with it.

/** The e2e server runs in sandbox mode without SUPPORT_EMAIL: messages go to the sandbox's address. */
const SUPPORT = "support@example.com";
const SENT = "Your message has been sent. We have emailed you a copy and will reply to that address.";
const SENT_WITHOUT_COPY = "Your message has been sent. We will reply to the email address you gave.";

type Mail = { to: string; subject: string; text: string; sentAt: string; replyTo?: string };

async function mailbox(request: APIRequestContext, to: string): Promise<Mail[]> {
  return (await (await request.get(`/dev/mailbox.json?to=${encodeURIComponent(to)}`)).json()) as Mail[];
}

/** The emails to `to` in the mail sandbox whose text contains `marker`, once there are `count` of them. */
async function mailsWith(request: APIRequestContext, to: string, marker: string, count = 1): Promise<Mail[]> {
  let found: Mail[] = [];
  await expect
    .poll(
      async () => {
        found = (await mailbox(request, to)).filter((mail) => mail.text.includes(marker));
        return found.length;
      },
      { message: `${count} email(s) to ${to} containing ${marker}` },
    )
    .toBe(count);
  return found;
}

const contact = (page: Page) => page.getByRole("region", { name: "Contact us" });
const sendButton = (page: Page) => contact(page).getByRole("button", { name: "Send message" });

test.describe("help", () => {
  test("a visitor finds the apps, the renewal and refund rules, and the contact form; the page is public", { tag: "@once" }, async ({ page }, testInfo) => {
    const response = await open(page, "/help", testInfo);
    expect(response?.headers()["cache-control"]).toBe("public, max-age=300, s-maxage=3600");
    await expect(page.getByRole("heading", { name: "Help", level: 1 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Get the apps running", level: 2 })).toBeVisible();
    for (const app of ["iPhone and iPad (App Store)", "Android (Google Play)", "Windows", "macOS"]) {
      await expect(page.getByRole("link", { name: app })).toBeVisible();
    }
    const rules = page.getByRole("region", { name: "Renewals and refunds" });
    await expect(rules.getByText("at least 24 hours before the end of the billing cycle")).toBeVisible();
    await expect(rules.getByText("refunded in full within 30 days")).toBeVisible();
    await expect(rules.getByText("renewal invoice 3 days before the plan ends")).toBeVisible();
    await expect(contact(page).getByRole("textbox", { name: "Email" })).toHaveValue("");
    await expect(contact(page).getByRole("textbox", { name: "Message" })).toBeVisible();
    await expect(sendButton(page)).toBeVisible();
  });

  test("a visitor's message: support gets it with Reply-To the sender, the address typed gets nothing", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("help");
    const marker = `marker-${testInfo.project.name}-${Date.now()}`;
    await open(page, "/help", testInfo);
    await contact(page).getByRole("textbox", { name: "Email" }).fill(email);
    await contact(page).getByRole("textbox", { name: "Message" }).fill(`The app will not connect.\nReference ${marker}`);
    await sendButton(page).click();

    await expect(contact(page).getByRole("status")).toHaveText(SENT_WITHOUT_COPY);
    await expect(page).toHaveURL(/\/help\?sent=1$/);
    const [toSupport] = await mailsWith(request, SUPPORT, marker);
    expect(toSupport).toMatchObject({ subject: `Support request from ${email}`, replyTo: email });
    expect(toSupport!.text).toContain(`The app will not connect.\nReference ${marker}`);
    // The API had sent everything before it answered: an address that proved nothing got no copy of the text.
    expect(await mailbox(request, email)).toEqual([]);

    // Another one starts from an empty form.
    await contact(page).getByRole("link", { name: "Send another message" }).click();
    await expect(contact(page).getByRole("textbox", { name: "Message" })).toHaveValue("");
  });

  test("on a small phone an empty message's errors are in view, the first field focused (issue 33)", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 320, height: 640 });
    await open(page, "/help", testInfo);
    await sendButton(page).click();
    const email = contact(page).getByRole("textbox", { name: "Email" });
    await expect(email).toBeInViewport();
    await expect(email).toHaveAttribute("aria-invalid", "true");
    const errorId = (await email.getAttribute("aria-describedby"))!.split(" ")[0];
    await expect(page.locator(`[id="${errorId}"]`)).not.toBeEmpty();
    await expect(page.locator(`[id="${errorId}"]`)).toBeInViewport();
    if (!hasJavaScript(testInfo)) await expect(email).toBeFocused();
  });

  test("errors stay next to their fields, and what was typed stays", async ({ page }, testInfo) => {
    // With JavaScript, a clock the test moves on instead of waiting (review issue 31).
    if (hasJavaScript(testInfo)) await page.clock.install();
    await open(page, "/help", testInfo);
    const emailBox = contact(page).getByRole("textbox", { name: "Email" });
    const messageBox = contact(page).getByRole("textbox", { name: "Message" });
    await sendButton(page).click();
    await expect(emailBox).toHaveAccessibleDescription("Please enter your email address.");
    await expect(messageBox).toHaveAccessibleDescription("Please write your message.");
    await expect(emailBox).toHaveAttribute("aria-invalid", "true");

    await emailBox.fill("not-an-email");
    await messageBox.fill("Where is my invoice?");
    await sendButton(page).click();
    await expect(emailBox).toHaveAccessibleDescription("Please enter a valid email address");
    await expect(messageBox).not.toHaveAttribute("aria-invalid", "true");
    await expect(messageBox).toHaveValue("Where is my invoice?");
    // Still there later: nothing closes it (without JavaScript nothing runs that could).
    if (hasJavaScript(testInfo)) await page.clock.fastForward(10_000);
    await expect(emailBox).toHaveAccessibleDescription("Please enter a valid email address");
    await expect(page.getByText(/Your message has been sent/)).toHaveCount(0);
  });

  test("control characters in the message are refused next to it; its lines are kept", async ({ page, request }, testInfo) => {
    await open(page, "/help", testInfo);
    const email = uniqueEmail("help-controls");
    const marker = `controls-${testInfo.project.name}-${Date.now()}`;
    const messageBox = contact(page).getByRole("textbox", { name: "Message" });
    await contact(page).getByRole("textbox", { name: "Email" }).fill(email);
    // A right-to-left override makes 'fdp.exe' read 'exe.pdf'.
    await messageBox.fill(`Please open my invoice\nfile \u202Efdp.exe ${marker}`);
    await sendButton(page).click();
    await expect(messageBox).toHaveAccessibleDescription("Remove the control characters from your message.");
    await expect(messageBox).toHaveAttribute("aria-invalid", "true");
    await expect(messageBox).toHaveValue(`Please open my invoice\nfile \u202Efdp.exe ${marker}`);
    await expect(page.getByText(SENT_WITHOUT_COPY)).toHaveCount(0);

    // Without it, the same lines go through.
    await messageBox.fill(`Please open my invoice\nfile fdp.exe ${marker}`);
    await sendButton(page).click();
    await expect(contact(page).getByRole("status")).toHaveText(SENT_WITHOUT_COPY);
    const [toSupport] = await mailsWith(request, SUPPORT, marker);
    expect(toSupport!.text).toContain(`Please open my invoice\nfile fdp.exe ${marker}`);
  });

  test("signed in: the account's email is filled in, the page is private, support sees the account, and the account gets a copy", async ({ page, request, login }, testInfo) => {
    const user = await login();
    const response = await open(page, "/help", testInfo);
    expect(response?.headers()["cache-control"]).toBe("private, no-store");
    const emailBox = contact(page).getByRole("textbox", { name: "Email" });
    await expect(emailBox).toHaveValue(user.email);

    const marker = `signed-in-${testInfo.project.name}-${Date.now()}`;
    await contact(page).getByRole("textbox", { name: "Message" }).fill(`Question ${marker}`);
    await sendButton(page).click();
    await expect(contact(page).getByRole("status")).toHaveText(SENT);
    await expect(page).toHaveURL(/\/help\?sent=1&copy=1$/);
    const [toSupport] = await mailsWith(request, SUPPORT, marker);
    expect(toSupport).toMatchObject({ replyTo: user.email });
    expect(toSupport!.text).toContain(`(${user.email})`);
    // The account's own address has proved itself: its copy carries the text.
    const [copy] = await mailsWith(request, user.email, marker);
    expect(copy!.subject).toBe("We have your message");
  });

  test("a short crypto payment says what arrived and what is missing, and Billing leads to a refund request", async ({ page, login }, testInfo) => {
    // A checkout, BitPay's sandbox page, the checkout again, Billing and Help: a long walk.
    test.slow();
    await login();
    await open(page, "/subscription/payment/1", testInfo);
    await page.getByText("Crypto Currencies", { exact: true }).click();
    await page.getByRole("button", { name: "Pay with Crypto" }).click();
    await expect(page).toHaveURL(/\/dev\/bitpay\/invoice\//);
    // The sandbox's 'Pay short': half of $9.99 arrives and the invoice expires underpaid.
    await page.getByRole("button", { name: "Pay short" }).click();
    await expect(page).toHaveURL(/\/subscription\/payment\/1$/);
    await expect(
      page
        .getByText(
          "Your crypto payment was short: $5.00 of $9.99 arrived and $4.99 is missing, so your plan has not started. In Billing you can ask for your money back (the invoice has closed).",
        )
        .first(),
    ).toBeVisible();

    await open(page, "/billing", testInfo);
    const row = page.getByRole("row").filter({ hasText: "Payment failed" });
    await expect(row.getByText("$5.00 of $9.99 arrived; $4.99 is missing. Its invoice has closed.")).toBeVisible();
    await row.getByRole("link", { name: "Ask for your money back" }).click();
    await expect(page).toHaveURL(/\/help\?topic=refund&invoice=[0-9a-f-]{36}#contact$/);
    await expect(contact(page).getByRole("textbox", { name: "Message" })).toHaveValue(/^Please refund my underpaid crypto payment \(invoice [0-9a-f-]{36}\)/);
  });

  test("a refund link fills in the message and sends a refund request", async ({ page, request }, testInfo) => {
    const invoice = randomUUID();
    await open(page, `/help?topic=refund&invoice=${invoice}#contact`, testInfo);
    const messageBox = contact(page).getByRole("textbox", { name: "Message" });
    await expect(messageBox).toHaveValue(new RegExp(`Please refund my underpaid crypto payment \\(invoice ${invoice}\\)`));
    const email = uniqueEmail("refund");
    await contact(page).getByRole("textbox", { name: "Email" }).fill(email);
    // The end of the whole text (End alone stops at the end of a wrapped line).
    await messageBox.press("ControlOrMeta+End");
    await messageBox.pressSequentially("bc1qexampleaddress0000000000000000");
    await sendButton(page).click();
    await expect(contact(page).getByRole("status")).toHaveText(SENT_WITHOUT_COPY);
    const [toSupport] = await mailsWith(request, SUPPORT, `${invoice})`);
    expect(toSupport!.subject).toBe(`Refund request from ${email}`);
    expect(toSupport!.text).toContain("My refund address is: bc1qexampleaddress0000000000000000");
  });
});
