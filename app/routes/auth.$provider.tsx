import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";

// Google and Apple sign-in are built in a later issue; until then these routes say so plainly.
const PROVIDERS = { google: "Google", apple: "Apple" } as const;

function providerName(param: string | undefined) {
  const name = PROVIDERS[param as keyof typeof PROVIDERS];
  if (!name) throw new Response("Not Found", { status: 404 });
  return name;
}

export async function loader({ params }: LoaderFunctionArgs) {
  return { provider: providerName(params.provider) };
}

export async function action({ params }: ActionFunctionArgs) {
  return { provider: providerName(params.provider) };
}

export default function ProviderNotConfigured() {
  const { provider } = useLoaderData<typeof loader>();
  return (
    <main className="error-page">
      <h1>{provider} sign-in is not configured</h1>
      <p>Signing in with {provider} is not available yet. Please sign in with your email and password.</p>
      <Link to="/login" className="button">
        Back to sign in
      </Link>
    </main>
  );
}
