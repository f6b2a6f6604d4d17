import { NotFound } from "~/components/not-found";

// Unknown paths render inside the root layout with a real 404 status, for posts too (not 405: there
// is nothing here to post to, e.g. /dev/clock outside sandbox mode).
export async function loader() {
  throw new Response("Not Found", { status: 404 });
}

export async function action() {
  throw new Response("Not Found", { status: 404 });
}

export default function NotFoundRoute() {
  return <NotFound />;
}

export function ErrorBoundary() {
  return <NotFound />;
}
