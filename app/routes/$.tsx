import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data } from "@remix-run/node";
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { NotFound } from "~/components/not-found";
import { getSessionToken } from "~/utils/session.server";

// Unknown paths render inside the root layout with a real 404 status, for posts too (not 405: there
// is nothing here to post to, e.g. /dev/clock outside sandbox mode). A signed-in customer's 404 knows
// them: the header says 'My Account', not 'Sign in' (issue 33); that answer is private to the session.

async function notFound(request: Request): Promise<never> {
  const signedIn = (await getSessionToken(request)) !== null;
  throw data({ signedIn }, { status: 404, headers: signedIn ? { "Cache-Control": "private, no-store" } : undefined });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return notFound(request);
}

export async function action({ request }: ActionFunctionArgs) {
  return notFound(request);
}

export default function NotFoundRoute() {
  return <NotFound />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const signedIn = isRouteErrorResponse(error) && (error.data as { signedIn?: unknown } | null)?.signedIn === true;
  return <NotFound signedIn={signedIn} />;
}
