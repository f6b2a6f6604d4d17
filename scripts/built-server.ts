// What the scripts that drive the built server (bench, lighthouse) share: waiting for it and signing in.

/** Resolves once `${base}/healthz` answers 200; throws after 30 s. */
export async function waitForHealth(base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("The server did not become healthy within 30 s");
}

/**
 * Signs the seeded demo account in through the portal's form; returns the cookies a browser keeps from it
 * (`name=value; name=value`): the session and the device cookie, which a signed-in browser always sends
 * (without it every page would make the device key a browser has only once).
 */
export async function signInDemo(base: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams({ email: "demo@example.com", password: "demo-password" }),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  if (response.status !== 302 || !cookie) throw new Error(`Demo sign-in failed with ${response.status}`);
  return cookie;
}

/** Signs the seeded demo account in at the API (POST /api/user/login); returns its bearer token. */
export async function apiTokenOfDemo(base: string): Promise<string> {
  const response = await fetch(`${base}/api/user/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "demo@example.com", password: "demo-password" }),
  });
  const body = (await response.json()) as { data?: { token?: string } };
  if (!response.ok || !body.data?.token) throw new Error(`Demo sign-in at the API failed with ${response.status}`);
  return body.data.token;
}
