import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachePolicy } from "../../server/cache-policy";

// The portal's one caching rule (docs/decisions/018) in front of a real Express app whose handlers
// answer the ways Remix does: set headers then a body, a redirect, an error, a streamed answer.
const app = express();
app.use(cachePolicy);
app.get("/public", (_req, res) => {
  res.setHeader("Cache-Control", "public, max-age=60");
  res.setHeader("Vary", "Accept-Encoding");
  res.send("public page");
});
app.get("/public-with-cookie", (_req, res) => {
  res.setHeader("Cache-Control", "public, max-age=60");
  res.setHeader("Set-Cookie", "toast=1; Path=/");
  res.send("consumed a flash message");
});
app.get("/data", (_req, res) => res.type("text/x-script").send("personal data"));
app.get("/no-store", (_req, res) => res.set("Cache-Control", "no-store").set("Vary", "Cookie").send("x"));
app.get("/redirect", (_req, res) => res.redirect("/login"));
app.get("/error", (_req, res) => res.status(500).end());
app.get("/stream", (_req, res) => {
  res.write("a");
  res.end("b");
});
app.get("/__manifest", (_req, res) => res.set("Cache-Control", "public, max-age=31536000, immutable").json({}));

let base = "";
let server: ReturnType<typeof app.listen>;
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", resolve);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

async function headersOf(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers, redirect: "manual" });
  await response.arrayBuffer();
  return { cacheControl: response.headers.get("cache-control"), vary: response.headers.get("vary") };
}

describe("cache policy", () => {
  it("keeps a public answer public for an anonymous visitor, varying on Cookie and the language (Accept-Language)", async () => {
    expect(await headersOf("/public")).toEqual({ cacheControl: "public, max-age=60", vary: "Accept-Encoding, Cookie, Accept-Language" });
  });

  it("keeps a visitor whose only cookie is the language anonymous (issue 36)", async () => {
    expect(await headersOf("/public", { Cookie: "lang=de" })).toEqual({ cacheControl: "public, max-age=60", vary: "Accept-Encoding, Cookie, Accept-Language" });
    expect((await headersOf("/public", { Cookie: "lang=de; __session=x" })).cacheControl).toBe("private, no-store");
  });

  it("makes the same answer private, no-store for a request with a cookie or a bearer token", async () => {
    for (const headers of [{ Cookie: "__session=x" }, { Authorization: "Bearer x" }] as Array<Record<string, string>>) {
      expect(await headersOf("/public", headers)).toEqual({ cacheControl: "private, no-store", vary: "Accept-Encoding, Cookie, Accept-Language" });
    }
  });

  it("makes a public answer that sets a cookie private, no-store", async () => {
    expect((await headersOf("/public-with-cookie")).cacheControl).toBe("private, no-store");
  });

  it("makes every answer without a public Cache-Control private, no-store: data, redirects, errors, streams", async () => {
    for (const path of ["/data", "/no-store", "/redirect", "/error", "/stream"]) {
      for (const headers of [{}, { Cookie: "__session=x" }] as Array<Record<string, string>>) {
        const seen = await headersOf(path, headers);
        expect(seen.cacheControl, path).toBe("private, no-store");
        expect(seen.vary, path).toMatch(/(^|, )Cookie, Accept-Language$/);
      }
    }
  });

  it("leaves Remix's route manifest shareable: it is the same for everybody", async () => {
    expect((await headersOf("/__manifest", { Cookie: "__session=x" })).cacheControl).toBe("public, max-age=31536000, immutable");
  });
});
