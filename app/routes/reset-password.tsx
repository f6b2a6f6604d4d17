import { redirect } from "@remix-run/node";

// identity §2: /reset-password redirects to the forget-password flow.
export async function loader() {
  return redirect("/forget-password");
}
