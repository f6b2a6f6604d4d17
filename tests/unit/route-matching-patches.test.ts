import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// The two patches npm's postinstall applies (patches/, docs/decisions/053): kept compilePath answers (and, in the
// server's CommonJS build, the ranked branches per routes array) in @remix-run/router, and the partial manifest's
// route ids kept per build, pathname and matches in @remix-run/react. They must be applied (a skipped postinstall
// fails here) and change no answer.
const require = createRequire(import.meta.url);
const routerFiles = ["@remix-run/router/dist/router.cjs.js", "@remix-run/router/dist/router.js"];
const fogOfWarFiles = ["@remix-run/react/dist/fog-of-war.js", "@remix-run/react/dist/esm/fog-of-war.js"];

type Route = { id: string; path?: string; index?: boolean; children?: Route[] };
const { matchRoutes, matchPath } = require("@remix-run/router") as {
  matchRoutes: (routes: Route[], location: string, basename?: string) => Array<{ route: Route; params: Record<string, string>; pathname: string }> | null;
  matchPath: (pattern: { path: string; caseSensitive?: boolean; end?: boolean }, pathname: string) => { params: Record<string, string> } | null;
};
const { getPartialManifest } = require("@remix-run/react/dist/fog-of-war.js") as {
  getPartialManifest: (
    manifest: { version: string; routes: Record<string, { id: string }> },
    router: { routes: Route[]; basename?: string; state: { location: { pathname: string }; matches: Array<{ route: Route }> } },
  ) => { version: string; routes: Record<string, { id: string }> };
};

// A tree shaped like the portal's (pathless layout, index routes, params, an optional segment, a splat).
const routes: Route[] = [
  {
    id: "root",
    path: "",
    children: [
      { id: "routes/_index", index: true },
      { id: "routes/_app", children: [{ id: "routes/_app.billing", path: "billing" }] },
      { id: "routes/subscription.payment.$planId", path: "subscription/payment/:planId" },
      { id: "routes/generate-password.($token)", path: "generate-password/:token?" },
      { id: "routes/$", path: "*" },
    ],
  },
];
const ids = (matches: ReturnType<typeof matchRoutes>) => matches?.map((match) => match.route.id) ?? null;

describe("the route-matching patches", () => {
  it("are applied to the installed packages", () => {
    for (const file of [...routerFiles, ...fogOfWarFiles]) expect(readFileSync(require.resolve(file), "utf8"), file).toContain("Patched (patches/");
  });

  it("match as before, the same answers every time, with each call's own params", () => {
    for (let round = 0; round < 3; round++) {
      expect(ids(matchRoutes(routes, "/"))).toEqual(["root", "routes/_index"]);
      expect(ids(matchRoutes(routes, "/billing"))).toEqual(["root", "routes/_app", "routes/_app.billing"]);
      const six = matchRoutes(routes, "/subscription/payment/6");
      const seven = matchRoutes(routes, "/subscription/payment/7");
      expect(six?.at(-1)?.params).toEqual({ planId: "6" });
      expect(seven?.at(-1)?.params).toEqual({ planId: "7" });
      expect(six?.at(-1)?.params).toEqual({ planId: "6" });
      expect(matchRoutes(routes, "/generate-password")?.at(-1)?.params).toEqual({ token: undefined });
      expect(matchRoutes(routes, "/generate-password/abc")?.at(-1)?.params).toEqual({ token: "abc" });
      expect(ids(matchRoutes(routes, "/no/such/page"))).toEqual(["root", "routes/$"]);
      expect(matchRoutes(routes, "/no/such/page")?.at(-1)?.params).toEqual({ "*": "no/such/page" });
    }
    // The ranked branches are kept per routes array (the server's, built once): another array is its own.
    const other: Route[] = [{ id: "root", path: "", children: [{ id: "routes/billing-only", path: "billing" }] }];
    expect(ids(matchRoutes(other, "/billing"))).toEqual(["root", "routes/billing-only"]);
    expect(ids(matchRoutes(routes, "/billing"))).toEqual(["root", "routes/_app", "routes/_app.billing"]);
    // The case and end flags are part of what is kept.
    expect(matchPath({ path: "/Billing", caseSensitive: true }, "/billing")).toBeNull();
    expect(matchPath({ path: "/Billing" }, "/billing")).not.toBeNull();
    expect(matchPath({ path: "/billing", end: true }, "/billing/more")).toBeNull();
    expect(matchPath({ path: "/billing", end: false }, "/billing/more")).not.toBeNull();
  });

  it("give a document the routes of its matches and of its parent paths, per build and pathname", () => {
    const manifestRoutes = Object.fromEntries(
      ["root", "routes/_index", "routes/_app", "routes/_app.billing", "routes/subscription.payment.$planId", "routes/generate-password.($token)", "routes/$"].map(
        (id) => [id, { id }],
      ),
    );
    const document = (pathname: string, version = "v1") => {
      const matches = matchRoutes(routes, pathname) ?? [];
      return Object.keys(getPartialManifest({ version, routes: manifestRoutes }, { routes, state: { location: { pathname }, matches } }).routes).sort();
    };
    // The checkout: its matches, plus '/' (the index) and its parent paths (nothing but the splat there).
    const checkout = ["root", "routes/$", "routes/_index", "routes/subscription.payment.$planId"];
    expect(document("/subscription/payment/6")).toEqual(checkout);
    expect(document("/subscription/payment/6")).toEqual(checkout);
    expect(document("/billing")).toEqual(["root", "routes/_app", "routes/_app.billing", "routes/_index"]);
    // Another build's manifest is asked again, not answered from the first one's.
    const otherBuild = Object.keys(
      getPartialManifest(
        { version: "v2", routes: { root: { id: "root" } } },
        { routes: [{ id: "root", path: "" }], state: { location: { pathname: "/subscription/payment/6" }, matches: [{ route: { id: "root" } }] } },
      ).routes,
    );
    expect(otherBuild).toEqual(["root"]);
    expect(document("/subscription/payment/6", "v2")).toEqual(checkout);
  });
});
