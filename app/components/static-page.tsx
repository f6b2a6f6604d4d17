import type { HeadersFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { Logo } from "./logo";

/** Public pages that are the same for everyone (a CDN may cache them). */
export const staticPageHeaders: HeadersFunction = () => ({ "Cache-Control": "public, max-age=300, s-maxage=3600" });

export function StaticPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="page prose">
        <h1>{title}</h1>
        {children}
        <Link to="/login?tab=signup">Back to sign up</Link>
      </main>
    </div>
  );
}
