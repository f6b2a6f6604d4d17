import { Writable } from "node:stream";
import { createElement } from "react";
import { renderToPipeableStream, renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { documentInOrder, withoutViewPadding } from "~/entry.server";

/** What React's Node renderer writes, chunk by chunk, as app/entry.server.tsx receives it. */
function renderChunks(element: ReturnType<typeof createElement>): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const { pipe } = renderToPipeableStream(element, {
      onAllReady() {
        pipe(
          new Writable({
            write(chunk: Buffer, _encoding, done) {
              chunks.push(chunk);
              done();
            },
            final(done) {
              resolve(chunks);
              done();
            },
          }),
        );
      },
      onShellError: reject,
    });
  });
}

/** Many short strings ending in a three-byte character: some of them meet the end of React's 2 kB view. */
const page = (width: number) =>
  createElement(
    "ul",
    null,
    Array.from({ length: 60 }, (_, i) => createElement("li", { key: i }, `${"x".repeat(width)}✓`)),
  );

describe("server rendering", () => {
  it("React 18's Node renderer pads a view with U+0000 where a multibyte character does not fit; the page has none", async () => {
    let padded = 0;
    for (let width = 20; width < 60; width++) {
      const chunks = await renderChunks(page(width));
      const raw = Buffer.concat(chunks);
      if (raw.includes(0)) padded++;
      const html = Buffer.concat(chunks.map(withoutViewPadding));
      expect(html.includes(0)).toBe(false);
      expect(html.toString("utf8")).toBe(renderToString(page(width)));
    }
    // The bug is real in the React this project runs (if an upgrade fixes it, this says so).
    expect(padded).toBeGreaterThan(0);
  });

  it("moves what Remix renders after </html> (single fetch's scripts) inside the body", () => {
    const html = Buffer.from('<!DOCTYPE html><html><body><p>x</p></body></html><script>a()</script>');
    expect(documentInOrder(html).toString()).toBe('<!DOCTYPE html><html><body><p>x</p><script>a()</script></body></html>');
    const whole = Buffer.from("<html><body></body></html>");
    expect(documentInOrder(whole)).toBe(whole);
  });
});
