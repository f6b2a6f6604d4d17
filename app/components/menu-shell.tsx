import { Form, NavLink, useLocation, useNavigation } from "@remix-run/react";
import { type ReactNode, useEffect, useRef } from "react";
import { Logo } from "./logo";
import { Spinner } from "./spinner";

const NAV_ITEMS = [
  { to: "/", label: "My Account", end: true },
  { to: "/pricing", label: "Pricing", end: false },
  { to: "/billing", label: "Billing", end: false },
  { to: "/connected-devices", label: "Connected Devices", end: false },
];

/**
 * The signed-in menu layout (identity §2): side navigation, the user's email and Log Out, a drawer
 * on small screens. The protected pages get it from routes/_app.tsx; the checkout uses it for
 * signed-in users only.
 */
export function MenuShell({ email, children }: { email: string; children: ReactNode }) {
  const navigation = useNavigation();
  const location = useLocation();
  const drawerToggle = useRef<HTMLInputElement>(null);

  // Without JavaScript the drawer is a CSS checkbox; with it, the drawer also closes after each navigation.
  // biome-ignore lint/correctness/useExhaustiveDependencies: location.key changes on each navigation, the moment to close
  useEffect(() => {
    if (drawerToggle.current) drawerToggle.current.checked = false;
  }, [location.key]);

  return (
    <div className="menu-layout">
      {/* The toggle sits in the banner landmark (axe: all content in landmarks); app.css reaches the
          drawer from it with :has(). */}
      <header className="topbar">
        <input ref={drawerToggle} type="checkbox" id="drawer-toggle" className="drawer-toggle" aria-label="Menu" />
        {/* Labels of the checkbox stay plain labels (aria-hidden on one is invalid HTML): what they draw is hidden. */}
        <label htmlFor="drawer-toggle" className="hamburger">
          <span aria-hidden="true" />
          <span aria-hidden="true" />
          <span aria-hidden="true" />
        </label>
        <Logo />
        {navigation.state === "loading" ? <Spinner /> : null}
      </header>
      <aside className="sidebar">
        <div className="sidebar-logo">
          <Logo />
          {/* Visible close control for the drawer; the checkbox itself is the accessible one. */}
          <label htmlFor="drawer-toggle" className="drawer-close">
            <span aria-hidden="true">×</span>
          </label>
        </div>
        <nav aria-label="Main">
          <ul>
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.end} prefetch="intent">
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-footer">
          <p className="sidebar-email">{email}</p>
          <Form method="post" action="/logout">
            <button type="submit" className="button button--ghost">
              Log Out
            </button>
          </Form>
        </div>
      </aside>
      {/* biome-ignore lint/a11y/noLabelWithoutControl: the backdrop is a second click target of the drawer toggle (the × is its named one) */}
      <label htmlFor="drawer-toggle" className="drawer-backdrop" />
      <main className="content" aria-busy={navigation.state === "loading"}>
        {children}
      </main>
    </div>
  );
}
