import type { ActionFunctionArgs, AppLoadContext, EntryContext, LoaderFunctionArgs } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToReadableStream } from "react-dom/server.browser";
import { NonceProvider } from "./utils/nonce-provider";

const ABORT_DELAY = 5_000;

export const streamTimeout = ABORT_DELAY;

/**
 * Server errors are logged (without request data); a request for a method or route that does not
 * exist (Remix's 405/404) is the client's mistake and would only bury real errors in the log.
 */
export function handleError(error: unknown, { request }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted) return;
  const status = typeof error === "object" && error !== null && "status" in error ? Number(error.status) : 500;
  if (status < 500) return;
  console.error(error);
}

/**
 * Renders the page whole and answers it in one piece, with its length. No route streams (no defer,
 * no Suspense), so the shell is the whole page anyway; one buffer instead of a chain of streams is
 * several writes and stream hops fewer per page (docs/decisions/013-performance-budgets.md).
 *
 * React's web-streams renderer, not renderToPipeableStream: React 18's Node renderer writes its whole
 * 2 kB view when a multibyte character does not fit at its end, so U+0000 bytes land in the page
 * (react-dom-server.node writeStringChunk). The web renderer encodes each string whole.
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? "";
  // Cache-Control: server/cache-policy.ts makes every answer of the app (pages, data requests,
  // redirects) private, no-store unless a route marks it public and the visitor is anonymous.

  let shellRendered = false;
  const abort = new AbortController();
  // Cleared once the page is done: a pending timer would keep the whole render in memory for its delay.
  const deadline = setTimeout(() => abort.abort(), ABORT_DELAY + 1_000);
  try {
    const stream = await renderToReadableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        signal: abort.signal,
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors during the shell reject the render (Remix answers them); log only those after it.
          if (shellRendered) console.error(error);
        },
      },
    );
    shellRendered = true;
    await stream.allReady;
    const html = documentInOrder(await readAll(stream));
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    responseHeaders.set("Content-Length", String(html.length));
    // Node's Buffer is a Uint8Array; the DOM types only want its ArrayBuffer form spelled out.
    return new Response(html as Uint8Array<ArrayBuffer>, { headers: responseHeaders, status: responseStatusCode });
  } finally {
    clearTimeout(deadline);
  }
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return Buffer.concat(chunks);
}

const DOCUMENT_END = Buffer.from("</body></html>");

/**
 * Remix renders single fetch's data scripts (its StreamTransfer) beside the router, so they come out
 * after `</html>`, where HTML allows nothing ('Stray start tag script'). Browsers run them anyway;
 * moving them before `</body>` makes the document valid and changes nothing else.
 */
export function documentInOrder(html: Buffer): Buffer {
  const end = html.lastIndexOf(DOCUMENT_END);
  if (end < 0 || end + DOCUMENT_END.length === html.length) return html;
  return Buffer.concat([html.subarray(0, end), html.subarray(end + DOCUMENT_END.length), DOCUMENT_END]);
}
