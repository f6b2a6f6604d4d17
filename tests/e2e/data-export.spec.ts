import { readFile } from "node:fs/promises";
import { expectHome, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// 'Download my data' on the account home (issue 22): a JSON attachment with the account and no
// secrets; over 5 an hour the page says so. Once (@once): the link is a plain <a> (a document navigation
// with JavaScript too, app/routes/_index.tsx) and the rest is HTTP, so both modes take the same path.

test.describe("download my data", () => {
  test("downloads the account's data as JSON, without secrets; over the limit the page says so", { tag: "@once" }, async ({ page, login }, testInfo) => {
    const user = await login();
    await open(page, "/", testInfo);
    await expectHome(page);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download my data" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^vpn-account-data-\d{4}-\d\d-\d\d\.json$/);
    const text = await readFile((await download.path())!, "utf8");
    const data = JSON.parse(text);
    expect(data.account.email).toBe(user.email);
    expect(data.account).toMatchObject({ has_password: true, verified: true });
    for (const list of ["linked_accounts", "subscriptions", "payments", "invoices", "cards", "devices", "security_events"]) {
      expect(Array.isArray(data[list]), list).toBe(true);
    }
    expect(data.devices.length).toBeGreaterThanOrEqual(1);
    expect(data.security_events.map((event: { kind: string }) => event.kind)).toContain("data_exported");
    expect(text).not.toContain(user.password);
    expect(text).not.toMatch(/password_hash|token_hash|argon2|secret/i);

    // The answer itself: an attachment that is never cached.
    const direct = await page.request.get("/account/data-export");
    expect(direct.headers()["content-disposition"]).toMatch(/^attachment; filename="vpn-account-data-\d{4}-\d\d-\d\d\.json"$/);
    expect(direct.headers()["cache-control"]).toContain("no-store");
    // Sent once (the server's security headers already carry it; the route adds none of its own).
    expect(direct.headersArray().filter((header) => header.name.toLowerCase() === "x-content-type-options")).toEqual([
      { name: expect.stringMatching(/^x-content-type-options$/i), value: "nosniff" },
    ]);

    // Five an hour: the next one stays on the page with the message in the 'Your data' card.
    for (let i = 0; i < 3; i++) expect((await page.request.get("/account/data-export")).status()).toBe(200);
    await open(page, "/", testInfo);
    await page.getByRole("link", { name: "Download my data" }).click();
    await expect(page.getByRole("alert").filter({ hasText: /You can download your data 5 times an hour\. Please try again in \d+ minutes?\./ })).toBeVisible();
    await expectHome(page);
  });
});
