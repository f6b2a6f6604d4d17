import { describe, expect, it } from "vitest";
import { deviceIcon } from "../../api/identity/devices";
import { hashToken } from "../../api/platform/tokens";
import { databases, useApi } from "./harness";

const WINDOWS_CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const MAC_SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15";
const ANDROID_CHROME =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

describe("device icons", () => {
  it("come from the OS, then the platform", () => {
    expect(deviceIcon("Windows", "Web Browser")).toBe("windows");
    expect(deviceIcon("macOS", "Desktop")).toBe("apple");
    expect(deviceIcon("iOS", "Web Browser")).toBe("apple");
    expect(deviceIcon("iPadOS", "Web Browser")).toBe("apple");
    expect(deviceIcon("Android", "Web Browser")).toBe("android");
    expect(deviceIcon("Linux", "Web Browser")).toBe("linux");
    expect(deviceIcon("Chrome OS", "Web Browser")).toBe("linux");
    // A distribution the parser names on its own (issue 33).
    expect(deviceIcon("Ubuntu", "Web Browser")).toBe("linux");
    expect(deviceIcon(null, "Web Browser")).toBe("browser");
    expect(deviceIcon(null, "Desktop")).toBe("desktop");
  });
});

describe.each(databases())("connected devices ($name)", (kind) => {
  const t = useApi(kind);

  async function userWithDevices(n: number, agents = [WINDOWS_CHROME, MAC_SAFARI, ANDROID_CHROME]) {
    const email = `devices-${Math.random().toString(36).slice(2, 10)}@example.com`;
    const id = await t.createUser({ email, password: "correct-horse-battery" });
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) {
      tokens.push(await t.login(email, "correct-horse-battery", { "User-Agent": agents[i % agents.length]! }));
      // Distinct sign-in times (business clock), so the order is known.
      t.clock.advanceSeconds(10);
    }
    return { id, email, tokens };
  }

  const list = (token: string, query = "") => t.get(`/api/devices${query}`, { token });

  it("lists the caller's devices as data[0], newest sign-in first, with the current one marked", async () => {
    const { id, tokens } = await userWithDevices(3);
    const res = await list(tokens[0]!, `?user_id=${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, success: true });
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data).toHaveLength(1);
    const devices = res.body.data[0] as Array<Record<string, unknown>>;
    expect(devices).toHaveLength(3);
    // Newest first: the Android sign-in was last.
    expect(devices.map((d) => d.device_icon)).toEqual(["android", "apple", "windows"]);
    expect(devices[2]).toMatchObject({
      device_os: "Windows",
      device_os_version: "10",
      device_brand: "Chrome",
      device_model: "Chrome 131",
      platform: "Web Browser",
      current: true,
    });
    // Safari freezes macOS at 10.15.7 in its User-Agent: not said without a client hint.
    expect(devices[1]).toMatchObject({ device_os: "macOS", device_os_version: null, current: false });
    // The API names each device; the portal shows the name as it is.
    expect(devices.map((d) => d.name)).toEqual(["Chrome 131 on Android 14", "Safari 17 on macOS", "Chrome 131 on Windows 10"]);
    expect(devices.filter((d) => d.current)).toHaveLength(1);
    for (const d of devices) expect(d.last_login_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const times = devices.map((d) => d.last_login_at as string);
    expect([...times].sort().reverse()).toEqual(times);

    // Without user_id too; `current` follows the token that asks.
    const fromAndroid = await list(tokens[2]!);
    expect(fromAndroid.status).toBe(200);
    expect(fromAndroid.body.data[0].find((d: { current: boolean }) => d.current).device_os).toBe("Android");
  });

  it("shows no other user's devices and refuses another user_id (403)", async () => {
    const a = await userWithDevices(1);
    const b = await userWithDevices(2);
    const res = await list(a.tokens[0]!);
    expect(res.body.data[0]).toHaveLength(1);
    const forbidden = await list(a.tokens[0]!, `?user_id=${b.id}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe("You can only manage your own devices.");
    const bad = await list(a.tokens[0]!, "?user_id=abc");
    expect(bad.status).toBe(422);
    expect((await t.get("/api/devices")).status).toBe(401);
  });

  it("leaves out devices whose tokens are revoked or expired (empty list when none is live)", async () => {
    const { id, tokens } = await userWithDevices(3);
    const [, second, third] = tokens;
    await t.db
      .updateTable("tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("token_hash", "=", hashToken(second!))
      .execute();
    await t.post("/api/user/logout", { token: third! });
    const res = await list(tokens[0]!);
    expect(res.body.data[0]).toHaveLength(1);
    expect(res.body.data[0][0].current).toBe(true);

    // The caller's own device always exists while it asks; with every token gone the query is empty.
    const { listDevices } = await import("../../api/identity/devices");
    await t.db.updateTable("tokens").set({ revoked_at: new Date().toISOString() }).where("user_id", "=", id).execute();
    expect(await listDevices(t.db, id, 0)).toEqual([]);
  });

  it("terminates one device at once and leaves the others signed in", async () => {
    const { id, tokens } = await userWithDevices(3);
    const [mine, other, third] = tokens as [string, string, string];
    const devices = (await list(mine)).body.data[0] as Array<{ id: number; device_os: string }>;
    const target = devices.find((d) => d.device_os === "macOS")!;

    const res = await t.post("/api/devices/terminate", { token: mine, json: { user_id: id, device_id: target.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: true,
      message: "Device terminated successfully",
      data: { device_id: target.id, current: false },
    });
    expect((await t.get("/api/me", { token: other })).status).toBe(401);
    expect((await t.get("/api/me", { token: mine })).status).toBe(200);
    expect((await t.get("/api/me", { token: third })).status).toBe(200);
    const after = (await list(mine)).body.data[0] as Array<{ id: number }>;
    expect(after.map((d) => d.id)).not.toContain(target.id);
    expect(after).toHaveLength(2);

    // Form data works too (the portal may post plain forms), and the caller's own device may go.
    const self = devices.find((d) => d.device_os === "Windows")!;
    const own = await t.post("/api/devices/terminate", {
      token: mine,
      form: { user_id: String(id), device_id: String(self.id) },
    });
    expect(own.status).toBe(200);
    expect(own.body.data.current).toBe(true);
    expect((await t.get("/api/me", { token: mine })).status).toBe(401);
    expect((await t.get("/api/me", { token: third })).status).toBe(200);
  });

  it("answers 404 for another user's device or an unknown one, and 403 for another user_id", async () => {
    const a = await userWithDevices(1);
    const b = await userWithDevices(1);
    const bDevice = (await list(b.tokens[0]!)).body.data[0][0].id as number;

    const foreign = await t.post("/api/devices/terminate", { token: a.tokens[0]!, json: { device_id: bDevice } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe("Device not found.");
    expect((await t.get("/api/me", { token: b.tokens[0]! })).status).toBe(200);

    const unknown = await t.post("/api/devices/terminate", { token: a.tokens[0]!, json: { device_id: 999_999 } });
    expect(unknown.status).toBe(404);

    const mismatch = await t.post("/api/devices/terminate", {
      token: a.tokens[0]!,
      json: { user_id: b.id, device_id: bDevice },
    });
    expect(mismatch.status).toBe(403);
    const mismatchAll = await t.post("/api/devices/terminate-all", { token: a.tokens[0]!, json: { user_id: b.id } });
    expect(mismatchAll.status).toBe(403);
    expect((await t.get("/api/me", { token: b.tokens[0]! })).status).toBe(200);
    expect((await t.get("/api/me", { token: a.tokens[0]! })).status).toBe(200);

    const missing = await t.post("/api/devices/terminate", { token: a.tokens[0]!, json: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.device_id).toEqual(["The device id field is required."]);
  });

  it("terminate-all revokes every token of the user, the caller's included, and no one else's", async () => {
    const a = await userWithDevices(3);
    const b = await userWithDevices(1);
    const res = await t.post("/api/devices/terminate-all", { token: a.tokens[1]!, json: { user_id: a.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: "All devices terminated successfully", data: { revoked: 3 } });
    for (const token of a.tokens) expect((await t.get("/api/me", { token })).status).toBe(401);
    expect((await t.get("/api/me", { token: b.tokens[0]! })).status).toBe(200);
    expect((await list(a.tokens[0]!)).status).toBe(401);
  });

  it("names a browser by its User-Agent and client hints: Windows 11 only when Sec-CH-UA-Platform-Version says so", async () => {
    const email = `devices-${Math.random().toString(36).slice(2, 10)}@example.com`;
    await t.createUser({ email, password: "correct-horse-battery" });
    const edge =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0";
    const firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
    await t.login(email, "correct-horse-battery", { "User-Agent": firefox });
    t.clock.advanceSeconds(10);
    const token = await t.login(email, "correct-horse-battery", {
      "User-Agent": edge,
      "Sec-CH-UA-Platform": '"Windows"',
      "Sec-CH-UA-Platform-Version": '"15.0.0"',
      "Sec-CH-UA-Full-Version-List": '"Microsoft Edge";v="131.0.2903.86", "Chromium";v="131.0.6778.140", "Not_A Brand";v="24.0.0.0"',
    });
    const devices = (await list(token)).body.data[0] as Array<Record<string, unknown>>;
    expect(devices.map((d) => [d.name, d.device_icon, d.device_os_version])).toEqual([
      ["Edge 131 on Windows 11", "windows", "11"],
      ["Firefox 133 on Windows 10", "windows", "10"],
    ]);

    // The activity log names the sign-ins the same way (the hints are kept with the event).
    const events = await t.get("/api/account/security-events", { token });
    expect(events.body.data.events.slice(0, 2).map((e: { browser: string }) => e.browser)).toEqual([
      "Edge 131 on Windows 11",
      "Firefox 133 on Windows 10",
    ]);
  });

  it("a hostile User-Agent or client hint never breaks the list", async () => {
    const email = `devices-${Math.random().toString(36).slice(2, 10)}@example.com`;
    await t.createUser({ email, password: "correct-horse-battery" });
    const token = await t.login(email, "correct-horse-battery", {
      "User-Agent": `Mozilla/5.0 (${"(".repeat(2000)} <script>`,
      "Sec-CH-UA-Platform": '"Windows"',
      "Sec-CH-UA-Platform-Version": `"${"9".repeat(400)}"`,
      "Sec-CH-UA-Full-Version-List": `"${"A".repeat(300)}";v="1"`,
    });
    const res = await list(token);
    expect(res.status).toBe(200);
    expect(res.body.data[0][0]).toMatchObject({ name: "Web browser", device_icon: "browser" });
  });

  it("terminate-others signs out every other device of the caller, keeps the caller's, and records it", async () => {
    const a = await userWithDevices(3);
    const b = await userWithDevices(1);
    const [first, mine, third] = a.tokens as [string, string, string];
    const res = await t.post("/api/devices/terminate-others", { token: mine, json: { user_id: a.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: "Other devices signed out", data: { revoked: 2 } });
    expect((await t.get("/api/me", { token: first })).status).toBe(401);
    expect((await t.get("/api/me", { token: third })).status).toBe(401);
    expect((await t.get("/api/me", { token: mine })).status).toBe(200);
    expect((await t.get("/api/me", { token: b.tokens[0]! })).status).toBe(200);
    const left = (await list(mine)).body.data[0] as Array<{ current: boolean; name: string }>;
    expect(left).toEqual([expect.objectContaining({ current: true, name: "Safari 17 on macOS" })]);

    const event = await t.db
      .selectFrom("security_events")
      .select(["kind", "user_agent"])
      .where("user_id", "=", a.id)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(event.kind).toBe("signed_out_other_devices");
    const events = await t.get("/api/account/security-events", { token: mine });
    expect(events.body.data.events[0]).toMatchObject({ kind: "signed_out_other_devices", label: "Signed out other devices" });

    // Again, with no other device: nothing to revoke, still signed in.
    const again = await t.post("/api/devices/terminate-others", { token: mine, json: {} });
    expect(again.body).toMatchObject({ status: true, data: { revoked: 0 } });
    expect((await t.get("/api/me", { token: mine })).status).toBe(200);

    // Another user's id: 403; no token: 401; a malformed body: 422, never a 500.
    expect((await t.post("/api/devices/terminate-others", { token: mine, json: { user_id: b.id } })).status).toBe(403);
    expect((await t.post("/api/devices/terminate-others", { json: {} })).status).toBe(401);
    expect((await t.post("/api/devices/terminate-others", { token: mine, json: { user_id: "abc" } })).status).toBe(422);
    expect((await t.get("/api/me", { token: b.tokens[0]! })).status).toBe(200);
  });
});
