import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { CancelFooter } from "~/components/cancel-footer";
import { MenuShell } from "~/components/menu-shell";
import { requireUser } from "~/utils/auth.server";

// The signed-in menu layout (identity §2): every child route is protected by this loader.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user } = await requireUser(request, context);
  return { email: user.email, hasPassword: user.has_password };
}

export default function MenuLayout() {
  const { email } = useLoaderData<typeof loader>();
  return (
    <MenuShell email={email}>
      <Outlet />
      <CancelFooter className="page-footer page-footer--app" signedIn />
    </MenuShell>
  );
}
