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
      name: "api-domains-import-no-http-layer",
      comment: "Domain code (lib, db, payments, billing, devices) never imports the routes or the app that serves them.",
      severity: "error",
      from: { path: "^api/(lib|db|payments|billing|devices)/" },
      to: { path: "^api/(routes|contract)/|^api/(app|server)\\.ts$" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|build|public)/" },
  },
};
