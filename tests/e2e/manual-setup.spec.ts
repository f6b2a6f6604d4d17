import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { APIRequestContext, Page, Request, TestInfo } from "@playwright/test";
import { hasJavaScript, open, withDatabase } from "../support/e2e";
import { expect, test } from "../support/fixtures";

// 'Manual setup' (issue 34), without and with JavaScript: a WireGuard configuration made (by the server
// without JavaScript, in the browser with it, where no request may carry its private key), shown once with
// its QR code, downloaded (the file parsed by wg-quick) and registered with the API (the servers' peers list
// has the public key of the shown private key, by `wg pubkey`); revoked through the confirm step (gone from
// the list and from the peers); a Free account's 'See plans' (from the phone menu); the limit; a reported
// handshake; a plan that ends pauses them until it is renewed; an API refusal shown beside the form with
// what was typed kept; and the OpenVPN/IKEv2 service credentials made, shown once and reset (the old password
// refused by the servers' check at once).

const PLAN = { subscriptionDays: { startDaysAgo: 1, days: 365 } };
const SHOWN_ONCE = "This private key is shown once. Download or scan it now.";
const QR_ALT = "QR code for the WireGuard app";
const NODE = { Authorization: "Bearer sandbox-node-token" };

type Envelope<T> = { data: T };

/** The public keys the VPN servers are told to accept now (GET /api/vpn/peers with the sandbox's node token). */
async function peerKeys(request: APIRequestContext): Promise<string[]> {
  const response = await request.get("/api/vpn/peers", { headers: NODE });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as Envelope<{ peers: Array<{ public_key: string }> }>;
  return body.data.peers.map((peer) => peer.public_key);
}

/** `wg pubkey`: WireGuard's own answer for a private key. */
function wgPubkey(privateKey: string): string {
  return execFileSync("wg", ["pubkey"], { input: `${privateKey}\n`, encoding: "utf8" }).trim();
}

/** The file as wg-quick reads it: `wg-quick strip` must accept it under its own (interface) name. */
function expectWgQuickAccepts(text: string, fileName: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "manual-setup-"));
  try {
    const file = path.join(dir, fileName);
    writeFileSync(file, text, { mode: 0o600 });
    const stripped = spawnSync("wg-quick", ["strip", file], { encoding: "utf8" });
    expect(stripped.stderr).toBe("");
    expect(stripped.status).toBe(0);
    expect(stripped.stdout).toMatch(/^\[Interface\]\nPrivateKey = \S{44}\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Everything the browser sends: URLs and bodies, to look for a secret in. */
function recordRequests(page: Page): Request[] {
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  return requests;
}

/** A bearer token of `user` from the API, for the calls a test makes around the page. */
async function apiToken(request: APIRequestContext, user: { email: string; password: string }): Promise<string> {
  const response = await request.post("/api/user/login", { data: user });
  expect(response.status()).toBe(200);
  return ((await response.json()) as Envelope<{ token: string }>).data.token;
}

/** A configuration made through the API with a fresh public key (what an app would send). */
async function createThroughApi(request: APIRequestContext, token: string, name: string) {
  const publicKey = execFileSync("sh", ["-c", "wg genkey | wg pubkey"], { encoding: "utf8" }).trim();
  const response = await request.post("/api/vpn/configurations", {
    headers: { Authorization: `Bearer ${token}` },
    data: { name, server: "fastest", public_key: publicKey },
  });
  expect(response.status(), await response.text()).toBe(200);
  return publicKey;
}

const configurations = (page: Page) => page.getByRole("list", { name: "Your configurations" }).getByRole("listitem");

async function createConfiguration(page: Page, name: string, server?: { index: number }) {
  await page.getByLabel("Name").fill(name);
  if (server) await page.getByLabel("Server").selectOption(server);
  await page.getByRole("button", { name: "Create configuration" }).click();
}

test.describe("manual setup", () => {
  test("creates a WireGuard configuration shown once, downloads it, and revokes it", async ({ page, login }, testInfo) => {
    await login(PLAN);
    const requests = recordRequests(page);
    await open(page, "/", testInfo);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Manual setup" }).click();
    await expect(page.getByRole("heading", { name: "Manual setup", level: 1 })).toBeVisible();
    const loaded = await open(page, "/manual-setup", testInfo);
    expect(loaded?.headers()["cache-control"]).toBe("private, no-store");
    await expect(page.getByText("No configurations yet.")).toBeVisible();

    // 'Fastest' first, then the servers by country.
    const server = page.getByLabel("Server");
    await expect(server.locator("option").first()).toHaveText("Fastest");
    expect(await server.locator("optgroup").count()).toBeGreaterThan(1);

    const posted = page.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname.startsWith("/manual-setup"));
    await createConfiguration(page, "Home router", { index: 1 });
    const answer = await posted;
    expect(answer.headers()["cache-control"]).toBe("private, no-store");

    await expect(page.getByText(SHOWN_ONCE)).toBeVisible();
    const text = await page.getByLabel("Configuration", { exact: true }).inputValue();
    expect(text).toMatch(/^\[Interface\]\nPrivateKey = [A-Za-z0-9+/]{43}=\nAddress = 10\.\d+\.\d+\.\d+\/32, [0-9a-f:]+\/128\nDNS = .+\n\n\[Peer\]\nPublicKey = [A-Za-z0-9+/]{43}=\nEndpoint = \S+:51820\nAllowedIPs = 0\.0\.0\.0\/0, ::\/0\n$/);
    const privateKey = /^PrivateKey = (\S+)$/m.exec(text)![1]!;
    const publicKey = wgPubkey(privateKey);
    // Registered with the API: the servers are told to accept exactly the public key of the key shown.
    expect(await peerKeys(page.request)).toContain(publicKey);

    // The private key never left the server's answer or the page: no request carries it.
    for (const request of requests) {
      expect(request.url()).not.toContain(privateKey);
      expect(request.url()).not.toContain(encodeURIComponent(privateKey));
      const body = request.postData() ?? "";
      expect(body).not.toContain(privateKey);
      expect(body).not.toContain(encodeURIComponent(privateKey));
    }
    const post = requests.find((request) => request.method() === "POST" && new URL(request.url()).pathname.startsWith("/manual-setup"))!;
    const form = new URLSearchParams(post.postData() ?? "");
    // With JavaScript only the public key is posted; without it, none (the server makes the pair).
    expect(form.get("public_key")).toBe(hasJavaScript(testInfo) ? publicKey : null);

    const qr = page.getByRole("img", { name: QR_ALT });
    await expect(qr).toBeVisible();
    await expect(qr).toHaveAttribute("src", /^data:image\/svg\+xml/);

    const link = page.getByRole("link", { name: "Download configuration" });
    await expect(link).toHaveAttribute("href", /^data:text\/plain/);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    const fileName = download.suggestedFilename();
    // The API's name: the server's place, then the name, cut to an interface name that wg-quick takes (15 characters).
    expect(fileName).toMatch(/^[a-z]{2}-[a-z]{3}-home-rou\.conf$/);
    const downloaded = readFileSync(await download.path(), "utf8");
    expect(downloaded).toBe(text);
    expectWgQuickAccepts(downloaded, fileName);

    const item = configurations(page).filter({ hasText: "Home router" });
    await expect(item).toHaveCount(1);
    await expect(item).toContainText(/Created \d\d [A-Z][a-z]+, \d{4}/);

    // Revoke: a confirm step first (Cancel keeps it), then gone from the list and from what the servers read.
    await item.getByRole("button", { name: "Revoke Home router" }).click();
    await expect(page).toHaveURL(/\?confirm=revoke-\d+$/);
    const dialog = page.getByRole("dialog", { name: "Revoke this configuration?" });
    await expect(dialog).toBeVisible();
    // Leaving the answer takes the private key off the page.
    await expect(page.getByText(SHOWN_ONCE)).toHaveCount(0);
    await dialog.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(configurations(page)).toHaveCount(1);
    await item.getByRole("button", { name: "Revoke Home router" }).click();
    await page.getByRole("dialog", { name: "Revoke this configuration?" }).getByRole("button", { name: "Revoke" }).click();
    await expect(page.getByText("'Home router' is revoked: it no longer connects.").first()).toBeVisible();
    await expect(page).toHaveURL(/\/manual-setup$/);
    await expect(page.getByText("No configurations yet.")).toBeVisible();
    expect(await peerKeys(page.request)).not.toContain(publicKey);
  });

  test("a refused form keeps what was typed: the name's rule beside it, the API's refusal in the form", async ({ page, login }, testInfo) => {
    const user = await login(PLAN);
    await open(page, "/manual-setup", testInfo);
    await createConfiguration(page, "", { index: 2 });
    await expect(page.getByText("Please enter a name")).toBeVisible();
    await expect(page.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");
    await createConfiguration(page, "x".repeat(41));
    await expect(page.getByText("The name must not be longer than 40 characters")).toBeVisible();
    await expect(page.getByLabel("Name")).toHaveValue("x".repeat(41));
    const chosen = await page.getByLabel("Server").inputValue();
    expect(chosen).not.toBe("fastest");

    if (hasJavaScript(testInfo)) {
      // A public key that is registered already (an app's), put in place of the browser's: the API's 409.
      const taken = await createThroughApi(page.request, await apiToken(page.request, user), "Phone");
      await page.route("**/manual-setup.data*", async (route) => {
        const form = new URLSearchParams(route.request().postData() ?? "");
        form.set("public_key", taken);
        await route.continue({ postData: form.toString() });
      });
      await createConfiguration(page, "Laptop");
      await expect(page.getByRole("alert").filter({ hasText: "This public key is already registered." })).toBeVisible();
      await expect(page.getByLabel("Name")).toHaveValue("Laptop");
      await expect(page.getByLabel("Server")).toHaveValue(chosen);
      await page.unroute("**/manual-setup.data*");
    }
  });

  test("a Free account sees the section with 'See plans' instead of the form (reached from the phone menu)", { tag: "@once" }, async ({ page, login }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 800 });
    await login();
    await open(page, "/", testInfo);
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Manual setup" })).toBeHidden();
    await page.getByRole("button", { name: "Menu", exact: true }).click();
    await nav.getByRole("link", { name: "Manual setup" }).click();
    await expect(page).toHaveURL(/\/manual-setup$/);
    await expect(page.getByRole("heading", { name: "WireGuard" })).toBeVisible();
    await expect(page.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/pricing");
    await expect(page.getByRole("button", { name: "Create configuration" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /credentials/ })).toHaveCount(0);
  });

  test("the limit replaces the form, a handshake is shown, and a plan that ends pauses the configurations until renewed", { tag: "@once" }, async ({ page, login }, testInfo) => {
    const user = await login(PLAN);
    const token = await apiToken(page.request, user);
    const keys: string[] = [];
    for (let i = 1; i <= 10; i++) keys.push(await createThroughApi(page.request, token, `Device ${i}`));
    await open(page, "/manual-setup", testInfo);
    await expect(configurations(page)).toHaveCount(10);
    await expect(page.getByText("You have 10 configurations. Revoke one to create another.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Create configuration" })).toHaveCount(0);
    expect(await peerKeys(page.request)).toContain(keys[0]);

    // A server reports a handshake: the list says when (UTC without JavaScript's help).
    const at = "2026-03-05T14:07:00.000Z";
    const reported = await page.request.post("/api/vpn/handshakes", { headers: NODE, data: { handshakes: [{ public_key: keys[0], at }] } });
    expect(reported.status()).toBe(200);
    await open(page, "/manual-setup", testInfo);
    await expect(configurations(page).filter({ hasText: "Device 1" }).filter({ hasNotText: "Device 10" })).toContainText("Last handshake 2026-03-05 14:07 UTC");

    // The plan ends (its end moved to yesterday): listed still, but paused, and gone from what the servers accept.
    const setPlanEnd = (end: Date) =>
      withDatabase(async (db) => {
        const owner = await db.selectFrom("users").select("id").where("email", "=", user.email.toLowerCase()).executeTakeFirstOrThrow();
        await db.updateTable("subscriptions").set({ sub_exp_date: end.toISOString() }).where("user_id", "=", owner.id).execute();
      });
    await setPlanEnd(new Date(Date.now() - 86_400_000));
    await open(page, "/manual-setup", testInfo);
    await expect(configurations(page)).toHaveCount(10);
    await expect(configurations(page).filter({ hasText: "Paused: your plan has ended" })).toHaveCount(10);
    await expect(page.getByRole("link", { name: "See plans" })).toBeVisible();
    expect(await peerKeys(page.request)).not.toContain(keys[0]);

    // Renewed: they work again.
    await setPlanEnd(new Date(Date.now() + 30 * 86_400_000));
    await open(page, "/manual-setup", testInfo);
    await expect(configurations(page).filter({ hasText: "Paused: your plan has ended" })).toHaveCount(0);
    expect(await peerKeys(page.request)).toContain(keys[0]);
  });

  test("service credentials: created and shown once, then reset, the old password refused at once", async ({ page, login }, testInfo: TestInfo) => {
    await login(PLAN);
    await open(page, "/manual-setup", testInfo);
    const section = page.getByRole("region", { name: "Service credentials" });
    await section.getByRole("button", { name: "Create credentials" }).click();
    await expect(section.getByText("This password is shown once.", { exact: false })).toBeVisible();
    const username = await section.getByLabel("Username").inputValue();
    const first = await section.getByLabel("Password").inputValue();
    expect(username).not.toBe("");
    expect(first.length).toBeGreaterThanOrEqual(16);
    if (hasJavaScript(testInfo)) await expect(section.getByRole("button", { name: "Copy" }).first()).toBeVisible();
    const check = (password: string) => page.request.post("/api/vpn/authenticate", { headers: NODE, data: { username, password } });
    expect((await check(first)).status()).toBe(200);

    // Opened again: the username and when, never the password.
    await open(page, "/manual-setup", testInfo);
    await expect(section.getByLabel("Password")).toHaveCount(0);
    await expect(section.getByText(username)).toBeVisible();
    await expect(section.getByText(/\d\d [A-Z][a-z]+, \d{4}/)).toBeVisible();

    await section.getByRole("button", { name: "Reset credentials" }).click();
    await expect(section.getByText("This password is shown once.", { exact: false })).toBeVisible();
    const second = await section.getByLabel("Password").inputValue();
    expect(second).not.toBe(first);
    expect(await section.getByLabel("Username").inputValue()).toBe(username);
    expect((await check(first)).status()).toBe(401);
    expect((await check(second)).status()).toBe(200);
  });
});
