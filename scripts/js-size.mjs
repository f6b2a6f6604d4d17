// Client JavaScript per route, gzip, from the Remix build manifest (what a first visit to the route loads).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

export function measureClientJs(buildDir = "public/build") {
  const manifestFile = fs.readdirSync(buildDir).find((f) => /^manifest-.*\.js$/.test(f));
  if (!manifestFile) throw new Error(`No Remix manifest in ${buildDir}: run npm run build first`);
  const source = fs.readFileSync(path.join(buildDir, manifestFile), "utf8");
  const manifest = JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1));
  const gzipSize = new Map();
  const sizeOf = (url) => {
    if (!gzipSize.has(url)) {
      const file = path.join(buildDir, url.replace(/^\/build\//, ""));
      gzipSize.set(url, zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length);
    }
    return gzipSize.get(url);
  };
  const routeFiles = (id) => {
    const route = manifest.routes[id];
    return route ? [route.module, ...(route.imports ?? [])] : [];
  };
  const chain = (id) => {
    const ids = [];
    for (let cur = id; cur; cur = manifest.routes[cur]?.parentId) ids.unshift(cur);
    return ids;
  };
  const entry = [manifest.entry.module, ...manifest.entry.imports, manifest.url];
  const total = (routeId) => {
    const files = new Set(entry);
    for (const id of chain(routeId)) for (const f of routeFiles(id)) files.add(f);
    let bytes = 0;
    for (const f of files) bytes += sizeOf(f);
    return bytes;
  };
  return { routes: Object.keys(manifest.routes), total };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { routes, total } = measureClientJs();
  const floor = total("routes/$");
  console.log(`floor (root layout, not-found page): ${(floor / 1024).toFixed(1)} kB gzip`);
  for (const id of routes.sort()) {
    const bytes = total(id);
    console.log(`${id.padEnd(32)} ${(bytes / 1024).toFixed(1).padStart(6)} kB  (+${((bytes - floor) / 1024).toFixed(1)} kB over floor)`);
  }
}
