import { describe, expect, it } from "vitest";
import { isActivePath } from "~/components/nav-item";

// NavItem (app/components/nav-item.tsx) marks the page shown by React Router's NavLink rule: the same path, or
// one under it (the next character a slash) unless `end`, in any letter case.
describe("isActivePath", () => {
  it.each([
    ["/", "/", true, true],
    ["/pricing", "/", true, false],
    ["/", "/", false, true],
    ["/pricing", "/", false, false],
    ["/pricing", "/pricing", false, true],
    ["/Pricing", "/pricing", false, true],
    ["/pricing/", "/pricing", false, true],
    ["/pricing/x", "/pricing", false, true],
    ["/pricing/x", "/pricing", true, false],
    ["/pricingx", "/pricing", false, false],
    ["/account", "/account/security", false, false],
    ["/account/security/passkeys", "/account/security", false, true],
    ["/help", "/help/", false, false],
    ["/help/", "/help/", false, true],
    ["/help/faq", "/help/", false, true],
    ["/helpdesk", "/help", false, false],
  ] as const)("%s against %s (end: %s): %s", (pathname, to, end, active) => {
    expect(isActivePath(pathname, to, end)).toBe(active);
  });
});
