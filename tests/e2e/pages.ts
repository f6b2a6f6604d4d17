// The pages a visitor can open without signing in (with the URLs that show their states), for the
// checkers that walk every page: axe (a11y.spec.ts) and the W3C HTML checker (scripts/html-check.ts).
export const VISITOR_PAGES = [
  "/login",
  "/login?tab=signup",
  "/get-code",
  "/forget-password",
  "/generate-password",
  "/generate-password/not-a-real-token",
  "/pricing",
  "/pricing?tab=monthly",
  "/pricing?tab=yearly",
  "/subscription/payment/6",
  "/payment/6",
  "/subscription/payment/7",
  "/terms",
  "/privacy",
  "/demo",
  "/login-sso",
  "/desktop-app/google/login?failed=1",
  "/subscription/bitpay-pay-due-invoice/00000000-0000-4000-8000-000000000000",
  "/no-such-page",
];
