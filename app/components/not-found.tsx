import { Link } from "@remix-run/react";

export function NotFound() {
  return (
    <main className="error-page">
      <h1>Oops! The page you are looking is not found!</h1>
      <Link to="/" className="button">
        Back to home
      </Link>
    </main>
  );
}
