import { Link, useLocation } from "@remix-run/react";
import type { ReactNode } from "react";

/**
 * A menu's link that says when it is the page shown (class "active", aria-current="page"), matched as
 * NavLink matches: the same path, or one under it unless `end`, in any letter case. NavLink resolves its
 * path, encodes it and watches pending navigations and view transitions for each link on every render,
 * some 10 to 20 µs of the server's CPU a link, and a signed-in page's menu has seven (issue 31). The
 * menus' targets are absolute paths, so the location's path is all it takes.
 */
export function NavItem({ to, end = false, children }: { to: string; end?: boolean; children: ReactNode }) {
  const active = isActivePath(useLocation().pathname, to, end);
  return (
    <Link to={to} prefetch="intent" className={active ? "active" : undefined} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

/** React Router's NavLink rule (v6): `to` itself, or a path under it (next character '/') unless `end`. */
export function isActivePath(pathname: string, to: string, end: boolean): boolean {
  const here = pathname.toLowerCase();
  const target = to.toLowerCase();
  if (here === target) return true;
  if (end) return false;
  const slashAt = target !== "/" && target.endsWith("/") ? target.length - 1 : target.length;
  return here.startsWith(target) && here.charAt(slashAt) === "/";
}
