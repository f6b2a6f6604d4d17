import type { AppLoadContext } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { createApiClient, serviceUnavailable } from "./api.server";
import { loginUrlFor, safeRedirect } from "./safe-redirect";
import { getSessionToken } from "./session.server";

/** Route guard (identity §2): anonymous visitors go to /login?oldurl=<path>, with no oldurl for "/". */
export async function requireToken(request: Request): Promise<string> {
  const token = await getSessionToken(request);
  if (!token) {
    const url = new URL(request.url);
    throw redirect(loginUrlFor(`${url.pathname}${url.search}`));
  }
  return token;
}

/** Signed-in visitors leave sign-in pages at once, for oldurl when it is safe, else home. */
export async function requireAnonymous(request: Request): Promise<void> {
  const token = await getSessionToken(request);
  if (token) {
    const oldurl = new URL(request.url).searchParams.get("oldurl");
    throw redirect(safeRedirect(oldurl));
  }
}

/** The signed-in user, checked with the API on every request so a revoked token signs out at once. */
export async function requireUser(request: Request, context: AppLoadContext) {
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);
  const me = await api.get("/api/me");
  if (!me.ok) throw serviceUnavailable();
  return { token, user: me.data, api };
}
