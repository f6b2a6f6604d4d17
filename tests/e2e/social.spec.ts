import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { createUser, expectHome, latestMail, open, signIn, withDatabase } from "../support/e2e";
import { uniqueEmail } from "../support/emails";
import { approveAtProvider } from "./identity-support";

async function signInWith(page: Page, testInfo: TestInfo, provider: "Google" | "Apple", person: { email: string; name: string }) {
  await open(page, "/login", testInfo);
  await page.getByRole("button", { name: `Continue with ${provider}` }).click();
  await approveAtProvider(page, testInfo, provider, person);
}

function account(email: string) {
  return withDatabase(async (db) => {
    const user = await db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
    const links = user ? await db.selectFrom("account_links").selectAll().where("user_id", "=", user.id).execute() : [];
    return { user, links };
  });
}

test.describe("Google and Apple sign-in through the identity sandbox", () => {
  for (const provider of ["Google", "Apple"] as const) {
    test(`a first ${provider} sign-in creates the account, linked and without a password`, async ({ page }, testInfo) => {
      const email = uniqueEmail(provider.toLowerCase());
      await signInWith(page, testInfo, provider, { email, name: "Ada Lovelace" });
      await expectHome(page);
      await expect(page.getByText(`Signed in with ${provider}.`)).toBeVisible();
      const row = page.getByRole("article", { name: "Connected accounts" }).getByRole("listitem").filter({ hasText: provider });
      await expect(row.getByText("Connected", { exact: true })).toBeVisible();
      const stored = await account(email);
      expect(stored.user?.password_hash).toBeNull();
      expect(stored.user?.name).toBe("Ada Lovelace");
      expect(stored.links.map((link) => link.link_type)).toEqual([provider.toUpperCase()]);
    });
  }

  test("an existing account with the same, verified email is signed into and linked", async ({ page }, testInfo) => {
    const user = await createUser();
    await signInWith(page, testInfo, "Google", { email: user.email, name: "Existing Person" });
    await expectHome(page);
    await expect(page.getByText(user.email)).toBeVisible();
    expect((await account(user.email)).links).toHaveLength(1);
  });

  test("connect and disconnect from the dashboard", async ({ page }, testInfo) => {
    const user = await createUser();
    await signIn(page, testInfo, user);
    await expectHome(page);
    const card = page.getByRole("article", { name: "Connected accounts" });
    await card.getByRole("button", { name: "Connect Apple" }).click();
    await approveAtProvider(page, testInfo, "Apple", { email: uniqueEmail("other-apple-id"), name: "Ada" });
    await expectHome(page);
    await expect(page.getByText("Apple account connected.")).toBeVisible();
    const apple = card.getByRole("listitem").filter({ hasText: "Apple" });
    await expect(apple.getByText("Connected", { exact: true })).toBeVisible();

    await apple.getByRole("button", { name: "Disconnect Apple" }).click();
    await expect(page.getByText("Apple account disconnected.")).toBeVisible();
    await expect(apple.getByText("Not Connected")).toBeVisible();
    expect((await account(user.email)).links).toHaveLength(0);
  });

  test("an account cannot lose its last way to sign in", async ({ page }, testInfo) => {
    const email = uniqueEmail("only-google");
    await signInWith(page, testInfo, "Google", { email, name: "Only Google" });
    await expectHome(page);
    await page.getByRole("button", { name: "Disconnect Google" }).click();
    await expect(page.getByRole("article", { name: "Connected accounts" }).getByRole("alert")).toHaveText("Set a password before disconnecting your only way to sign in.");
    expect((await account(email)).links).toHaveLength(1);
  });

  test("a Google-created account sets its first password through the emailed link", async ({ page, request }, testInfo) => {
    const email = uniqueEmail("google-no-password");
    await signInWith(page, testInfo, "Google", { email, name: "Grace" });
    await expectHome(page);
    await page.getByRole("button", { name: "Set password" }).click();
    const mail = await latestMail(request, email, /set your account password/i);
    const link = mail.text.match(/https?:\/\/\S+\/generate-password\/\S+/)?.[0];
    await open(page, new URL(link!).pathname, testInfo);
    await page.getByLabel("Password", { exact: true }).fill("grace-password-1");
    await page.getByLabel("Confirm Password").fill("grace-password-1");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await expectHome(page);
    await page.getByRole("button", { name: "Log Out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, testInfo, { email, password: "grace-password-1" });
    await expectHome(page);
  });
});
