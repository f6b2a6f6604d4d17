import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { createApiClient } from "~/utils/api.server";
import { destroySessionCookie, getSessionToken } from "~/utils/session.server";

// Logout only by POST (a GET would let any page sign you out). The session is cleared even when the
// API call fails (identity §2: after a failed logout the user also goes to login).
export async function action({ request, context }: ActionFunctionArgs) {
  const token = await getSessionToken(request);
  if (token) {
    try {
      await createApiClient(request, context, token).post("/api/user/logout");
    } catch {
      // A 401 from the API is thrown as a sign-out redirect; the outcome is the same.
    }
  }
  return redirect("/login", { headers: { "Set-Cookie": await destroySessionCookie(request) } });
}

export async function loader() {
  return redirect("/");
}
