import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { publicCache } from "~/utils/cache-headers";
import { Logo } from "./logo";

/** Public pages that are the same for everyone (a CDN may cache them). */
export const staticPageHeaders = publicCache("public, max-age=300, s-maxage=3600");

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
