import { Form, useLocation, useNavigation } from "@remix-run/react";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Logo } from "./logo";
import { NavItem } from "./nav-item";
import { Spinner } from "./spinner";

const NAV_ITEMS = [
  { to: "/", label: "account.nav.myAccount", end: true },
  { to: "/pricing", label: "account.nav.pricing", end: false },
  { to: "/billing", label: "account.nav.billing", end: false },
  { to: "/connected-devices", label: "account.nav.connectedDevices", end: false },
  { to: "/manual-setup", label: "account.nav.manualSetup", end: false },
  { to: "/account/security", label: "account.nav.security", end: false },
  { to: "/help", label: "account.nav.help", end: false },
];

const DRAWER_ID = "menu-drawer";

/**
 * The signed-in menu layout (identity §2): side navigation, the user's email and Log Out, a drawer
 * on small screens. The protected pages get it from routes/_app.tsx; the checkout uses it for
 * signed-in users only.
 *
 * The drawer is a popover (the HTML popover attribute) opened by a real button named 'Menu': the browser
 * opens and closes it without JavaScript, Escape and a click outside close it, and focus goes back to the
 * button. With JavaScript the button opens it itself and says whether it is open (aria-expanded), and the
 * drawer closes after each navigation. On wide screens CSS shows the same element as the sidebar.
 */
export function MenuShell({ email, children }: { email: string; children: ReactNode }) {
  const { t } = useTranslation("account");
  const navigation = useNavigation();
  const location = useLocation();
  const drawer = useRef<HTMLElement>(null);
  // null until hydrated: the server's HTML carries no aria-expanded it could not keep up to date.
  const [open, setOpen] = useState<boolean | null>(null);

  useEffect(() => {
    const element = drawer.current;
    if (!element) return;
    setOpen(element.matches(":popover-open"));
    const onToggle = (event: Event) => setOpen((event as ToggleEvent).newState === "open");
    element.addEventListener("toggle", onToggle);
    return () => element.removeEventListener("toggle", onToggle);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: location.key changes on each navigation, the moment to close
  useEffect(() => {
    if (drawer.current?.matches(":popover-open")) drawer.current.hidePopover();
  }, [location.key]);

  return (
    <div className="menu-layout">
      <header className="topbar">
        {/* Without JavaScript the browser opens the drawer (popovertarget; it must then carry no aria-expanded,
            which the browser gives it); with it, the button opens it and says whether it is open. */}
        <button
          type="button"
          className="hamburger"
          aria-controls={DRAWER_ID}
          {...(open === null ? { popovertarget: DRAWER_ID } : { "aria-expanded": open, onClick: () => drawer.current?.togglePopover() })}
        >
          <span className="hamburger__bars" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          <span className="visually-hidden">{t("account.nav.menu")}</span>
        </button>
        <Logo />
        {navigation.state === "loading" ? <Spinner /> : null}
      </header>
      <aside ref={drawer} id={DRAWER_ID} className="sidebar" {...{ popover: "auto" }}>
        <div className="sidebar-logo">
          <Logo />
          <button type="button" className="drawer-close" {...{ popovertarget: DRAWER_ID, popovertargetaction: "hide" }}>
            <span aria-hidden="true">×</span>
            <span className="visually-hidden">{t("account.nav.close")}</span>
          </button>
        </div>
        <nav aria-label={t("account.nav.main")}>
          <ul>
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavItem to={item.to} end={item.end}>
                  {t(item.label)}
                </NavItem>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-footer">
          <p className="sidebar-email">{email}</p>
          <Form method="post" action="/logout">
            <button type="submit" className="button button--ghost">
              {t("account.nav.logOut")}
            </button>
          </Form>
        </div>
      </aside>
      <main className="content" aria-busy={navigation.state === "loading"}>
        {children}
      </main>
    </div>
  );
}
