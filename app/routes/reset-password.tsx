import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { writeFlow } from "~/utils/flow.server";

// identity §2: /reset-password redirects to the forget-password flow. The new sign-in alert's link
// (issue 22, docs/decisions/035) carries a reset token and its email: the flow then starts at its last
// step, 'Choose a new password', which signs out every other session. The token is only kept in the
// sealed flow cookie here; it is checked (and used up) when the new password is sent.
const TOKEN = /^[A-Za-z0-9_-]{20,200}$/;

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const token = url.searchParams.get("token") ?? "";
  const email = (url.searchParams.get("email") ?? "").trim().toLowerCase();
  if (!TOKEN.test(token) || !email.includes("@") || email.length > 254) return redirect("/forget-password");
  const cookie = await writeFlow(request, "reset", { email, sentAt: Date.now(), resetToken: token });
  return redirect("/forget-password", { headers: { "Set-Cookie": cookie } });
}
