import { Link } from "@remix-run/react";
import { PublicShell } from "./public-shell";

/** The 404 page (commerce §6), in the public frame: a lost visitor still finds the plans, help and sign-in. */
export function NotFound({ signedIn = false }: { signedIn?: boolean }) {
  return (
    <PublicShell signedIn={signedIn}>
      <main className="error-page">
        <h1>Oops! The page you are looking is not found!</h1>
        <Link to="/" className="button">
          Back to home
        </Link>
      </main>
    </PublicShell>
  );
}
