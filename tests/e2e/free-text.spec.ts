import { hasJavaScript, open } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// Free text with control or direction characters (review issue 30, docs/decisions/043) is refused next to its
// field. The contact form's case, with JavaScript and without, is in help.spec.ts; here the passkey name, which
// is checked before the browser's passkey prompt (adding a passkey needs JavaScript).

test("a passkey name with a direction override is refused next to 'Passkey name', before any passkey is made", async ({ page, login }, testInfo) => {
  test.skip(!hasJavaScript(testInfo), "adding a passkey needs JavaScript");
  // A virtual authenticator: had the prompt run, it would now hold a passkey.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await login();
  await open(page, "/account/security", testInfo);
  const section = page.locator("#passkeys");
  const nameBox = section.getByLabel("Passkey name");
  // 'Laptop\u202Eexe.txt' reads 'Laptoptxt.exe'.
  await nameBox.fill("Laptop\u202Eexe.txt");
  await section.getByRole("button", { name: "Add a passkey" }).click();
  await expect(nameBox).toHaveAccessibleDescription("Remove the control characters from the passkey name.");
  await expect(nameBox).toHaveAttribute("aria-invalid", "true");
  await expect(section.getByText("No passkeys yet.")).toBeVisible();
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toEqual([]);
});
