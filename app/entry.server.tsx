import { Writable } from "node:stream";
import type { ActionFunctionArgs, AppLoadContext, EntryContext, LoaderFunctionArgs } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
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
 * no Suspense), so the shell is the whole page anyway; one buffer instead of a chain of streams
 * (React's 2 kB writes through a PassThrough, a web ReadableStream and the response) is several
 * writes and stream hops fewer per page (docs/decisions/013-performance-budgets.md).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? "";
  // Cache-Control: server/cache-policy.ts makes every answer of the app (pages, data requests,
  // redirects) private, no-store unless a route marks it public and the visitor is anonymous.

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          const chunks: Buffer[] = [];
          pipe(
            new Writable({
              write(chunk: Buffer, _encoding, done) {
                chunks.push(chunk);
                done();
              },
              final(done) {
                clearTimeout(deadline);
                const html = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
                responseHeaders.set("Content-Type", "text/html; charset=utf-8");
                responseHeaders.set("Content-Length", String(html.length));
                // Node's Buffer is a Uint8Array; the DOM types only want its ArrayBuffer form spelled out.
                resolve(new Response(html as Uint8Array<ArrayBuffer>, { headers: responseHeaders, status: responseStatusCode }));
                done();
              },
            }),
          );
        },
        onShellError(error: unknown) {
          clearTimeout(deadline);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors during the shell are reported by onShellError; log only those after it.
          if (shellRendered) console.error(error);
        },
      },
    );
    // Cleared once the page is done: a pending timer would keep the whole render in memory for its delay.
    const deadline = setTimeout(abort, ABORT_DELAY + 1_000);
  });
}
