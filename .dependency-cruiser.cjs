// The import rules `npm run check:imports` enforces (docs/decisions/022-layout-and-import-rules.md).
// Type-only imports count: a cycle closed by a type is still a cycle to read and to change.
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycle anywhere, type-only imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "portal-reaches-api-over-http",
      comment: "The portal talks to the product API over HTTP only (its types come from app/utils/api-types.generated.ts).",
      severity: "error",
      from: { path: "^app/" },
      to: { path: "^api/" },
    },
    {
      name: "api-knows-no-portal",
      comment: "The product API runs without the portal.",
      severity: "error",
      from: { path: "^api/" },
      to: { path: "^(app|server)/|^server\\.ts$" },
    },
    {
      name: "shared-portal-code-imports-no-route",
      comment: "Components, features, schemas and utils are used by routes, never the reverse.",
      severity: "error",
      from: { path: "^app/(components|features|schemas|utils)/" },
      to: { path: "^app/routes/" },
    },
    {
      name: "routes-keep-to-their-folder",
      comment:
        "A route's own modules sit in its folder; shared code goes to app/features or app/components. " +
        "Only a route module itself may be re-exported (a second URL for the same page).",
      severity: "error",
      // The group stops before a '$' (subscription.payment.$planId): the captured text is read as a regex.
      from: { path: "^app/routes/([^/$]+)" },
      to: { path: "^app/routes/[^/]+/", pathNot: ["^app/routes/$1[^/]*/", "/route\\.tsx?$"] },
    },
    {
      name: "api-platform-is-the-floor",
      comment:
        "api/platform (config, logger, clock, errors, db, mail, rate limits, i18n) imports nothing else of the API " +
        "but the texts of its languages, api/locales (data, no code; docs/decisions/064).",
      severity: "error",
      from: { path: "^api/platform/" },
      to: { path: "^api/", pathNot: "^api/(platform|locales)/" },
    },
    {
      name: "api-identity-stands-on-platform",
      comment: "Identity (users, sessions, codes, two-factor, devices) imports only the platform.",
      severity: "error",
      from: { path: "^api/identity/" },
      to: { path: "^api/", pathNot: "^api/(platform|identity)/" },
    },
    {
      name: "api-payments-stand-on-platform-and-identity",
      comment: "Payments import the platform and identity (whose account pays), never billing or the HTTP layer.",
      severity: "error",
      from: { path: "^api/payments/" },
      to: { path: "^api/", pathNot: "^api/(platform|identity|payments)/" },
    },
    {
      name: "api-billing-stands-on-payments",
      comment: "Billing (transactions, refunds, invoices, auto-renewal) may import payments, identity and the platform.",
      severity: "error",
      from: { path: "^api/billing/" },
      to: { path: "^api/", pathNot: "^api/(platform|identity|payments|billing)/" },
    },
    {
      name: "billing-asks-the-gateway-interface",
      comment:
        "Billing asks a subscription's gateway through one interface (api/payments/gateway.ts, gatewayFor; docs/decisions/049): " +
        "it never imports a gateway's adapter or client (api/payments/stripe, paypal, bitpay).",
      severity: "error",
      from: { path: "^api/billing/" },
      to: { path: "^api/payments/(stripe|paypal|bitpay)/" },
    },
    {
      name: "api-vpn-stands-on-payments",
      comment:
        "Manual setup (WireGuard configurations, service credentials, the VPN servers' lists) may import payments (whether an " +
        "account has a plan), identity (passwords) and the platform; the HTTP layer composes it (docs/decisions/058).",
      severity: "error",
      from: { path: "^api/vpn/" },
      to: { path: "^api/", pathNot: "^api/(platform|identity|payments|vpn)/" },
    },
    {
      name: "api-support-stands-on-platform",
      comment: "Support (the help page's contact form) imports only the platform: mail, limits, configuration.",
      severity: "error",
      from: { path: "^api/support/" },
      to: { path: "^api/", pathNot: "^api/(platform|support)/" },
    },
    {
      name: "api-http-is-the-top",
      comment: "Only the HTTP layer knows HTTP: nothing below imports api/http or the servers.",
      severity: "error",
      from: { path: "^api/(platform|identity|payments|billing|support|vpn|sandboxes)/" },
      to: { path: "^api/http/|^api/server\\.ts$" },
    },
    {
      name: "api-sandboxes-stay-out-of-the-product",
      comment:
        "The stand-ins are loaded in sandbox mode only, through one module, api/http/sandboxes.ts (docs/decisions/024): " +
        "nothing else in the product imports them, so the product's bundles hold none of their code.",
      severity: "error",
      from: { path: "^(api|app|server)/|^server\\.ts$", pathNot: "^api/sandboxes/|^api/http/sandboxes\\.ts$" },
      to: { path: "^api/sandboxes/" },
    },
    {
      name: "api-sandboxes-loaded-dynamically",
      comment:
        "The sandbox loader reaches the sandboxes by a dynamic import only (the build keeps it a separate bundle, " +
        "build/sandboxes.js); a type-only import is erased and allowed.",
      severity: "error",
      from: { path: "^api/http/sandboxes\\.ts$" },
      to: { path: "^api/sandboxes/", dependencyTypesNot: ["dynamic-import", "type-only"] },
    },
    {
      name: "stripe-sdk-only-in-the-gateway",
      comment:
        "The server-side Stripe SDK (its types included) is imported only by api/payments/stripe/, whose named functions the " +
        "domains call, and by the sandboxes (their objects are typed by it). Tests and scripts may use it to look at the gateway.",
      severity: "error",
      from: { path: "^(api|app|server)/|^server\\.ts$", pathNot: "^api/(payments/stripe|sandboxes)/" },
      to: { path: "(^|/)node_modules/stripe/" },
    },
    {
      name: "paypal-sdk-only-in-the-gateway",
      comment:
        "The server-side PayPal SDK is imported only by api/payments/paypal/client.ts, whose named functions the domains call " +
        "(docs/decisions/039), and by the sandboxes. Tests and scripts may use it to look at the gateway.",
      severity: "error",
      from: { path: "^(api|app|server)/|^server\\.ts$", pathNot: "^api/payments/paypal/client\\.ts$|^api/sandboxes/" },
      to: { path: "(^|/)node_modules/@paypal/paypal-server-sdk/" },
    },
    {
      name: "stripe-js-only-in-the-portal",
      comment: "Stripe.js and its React components (@stripe/*) run in the browser: the portal's card entry and wallets, never the API.",
      severity: "error",
      from: { path: "^(api|server)/|^server\\.ts$" },
      to: { path: "(^|/)node_modules/@stripe/" },
    },
    {
      name: "tests-support-stands-alone",
      comment:
        "tests/support (factories, cards, clocks, the signed-in fixture, the page states) is shared by the suites and the " +
        "scripts: it imports no suite and no portal route.",
      severity: "error",
      from: { path: "^tests/support/" },
      to: { path: "^tests/(api|e2e|unit)/|^app/routes/" },
    },
    {
      name: "scripts-take-test-code-from-support",
      comment: "The quality scripts share the tests' helpers through tests/support only, never a suite's own files.",
      severity: "error",
      from: { path: "^scripts/" },
      to: { path: "^tests/", pathNot: "^tests/support/" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(build|public)/" },
  },
};
