// Bundles server.ts (and the standalone API entry) for plain `node`, leaving packages external.
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
};

await build({ ...common, entryPoints: ["server.ts"], outfile: "build/server.js" });
await build({ ...common, entryPoints: ["api/server.ts"], outfile: "build/api.js" });
