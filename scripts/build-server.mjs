// Bundles server.ts (and the standalone API entry) for plain `node`, leaving packages external; and the
// sandboxes as a bundle of their own (docs/decisions/024).
import path from "node:path";
import { build } from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  // The oldest Node the bundle still starts on: Node 22 is supported, and `npm start` keeps working on 20.
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  metafile: true,
};

// The product reaches the sandboxes only through the dynamic import in api/http/sandboxes.ts. In the
// product's bundles it stays a dynamic import, of build/sandboxes.js beside them, read only in sandbox mode.
const SANDBOX_LOADER = path.resolve("api/http/sandboxes.ts");
const sandboxesApart = {
  name: "sandboxes-apart",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/sandboxes\/index$/ }, (args) =>
      args.kind === "dynamic-import" && args.importer === SANDBOX_LOADER ? { path: "./sandboxes.js", external: true } : undefined,
    );
  },
};

/** Fails the build when a product bundle took in a sandbox module after all (a static import somewhere). */
function assertNoSandbox(outfile, result) {
  const sandboxInputs = Object.keys(result.metafile.inputs).filter((input) => input.startsWith("api/sandboxes/"));
  if (sandboxInputs.length > 0) {
    throw new Error(`${outfile} must not contain the sandboxes (docs/decisions/024), but bundles ${sandboxInputs.join(", ")}`);
  }
}

for (const [entry, outfile] of [
  ["server.ts", "build/server.js"],
  ["api/server.ts", "build/api.js"],
]) {
  assertNoSandbox(outfile, await build({ ...common, entryPoints: [entry], outfile, plugins: [sandboxesApart] }));
}
await build({ ...common, entryPoints: ["api/sandboxes/index.ts"], outfile: "build/sandboxes.js" });
