import { NotFound } from "~/components/not-found";

// Unknown paths render inside the root layout with a real 404 status.
export async function loader() {
  throw new Response("Not Found", { status: 404 });
}

export default function NotFoundRoute() {
  return <NotFound />;
}

export function ErrorBoundary() {
  return <NotFound />;
}
