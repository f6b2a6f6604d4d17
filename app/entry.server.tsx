import { Writable } from "node:stream";
import type { ActionFunctionArgs, AppLoadContext, EntryContext, LoaderFunctionArgs } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { catalogueOf, i18nFor, languageOf } from "./i18n/i18n.server";
import { PageLanguageProvider } from "./i18n/page-language";
import { registerTranslators } from "./i18n/translate";
import { NonceProvider } from "./utils/nonce-provider";

const ABORT_DELAY = 5_000;

registerTranslators((language) => i18nFor(language).t);

export const streamTimeout = ABORT_DELAY;

// server.ts gives the build its configuration through this module: the build holds its own copy of config.server.
export { setPortalConfig } from "./config.server";

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
  const language = languageOf(request);
  const pageLanguage = { language, catalogueUrl: catalogueOf(language).url };
  // Cache-Control: server/cache-policy.ts makes every answer of the app (pages, data requests,
  // redirects) private, no-store unless a route marks it public and the visitor is anonymous.

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <I18nextProvider i18n={i18nFor(language)}>
        <PageLanguageProvider value={pageLanguage}>
          <NonceProvider value={nonce}>
            <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
          </NonceProvider>
        </PageLanguageProvider>
      </I18nextProvider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          const chunks: Buffer[] = [];
          pipe(
            new Writable({
              // No 'close' once finished: React aborts on its destination's close, and ending the ended
              // stream again made Node build an ERR_STREAM_ALREADY_FINISHED error (a stack trace) per page.
              emitClose: false,
              write(chunk: Buffer, _encoding, done) {
                chunks.push(withoutViewPadding(chunk));
                done();
              },
              final(done) {
                clearTimeout(deadline);
                const html = documentInOrder(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
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

/** React 18's Node renderer writes into views of this many bytes (react-dom-server.node: VIEW_SIZE). */
const REACT_VIEW_SIZE = 2048;

/**
 * React 18.3's Node renderer has a bug (writeStringChunk): when a string's next character does not fit
 * in the rest of its 2 kB view, it writes the whole view, unused zero bytes included, and goes on in a
 * new one; so U+0000 bytes land in the page before that character ('✓' on /pricing). Such a view is
 * exactly REACT_VIEW_SIZE long and ends in zeros, which no written HTML does: those zeros are cut.
 * React 19 fixes it; its web-streams renderer avoids it too, but costs about 0.5 ms more per page
 * (the signed-in home 57 % of the floor instead of 64 %, `npm run bench`).
 */
export function withoutViewPadding(chunk: Buffer): Buffer {
  if (chunk.length !== REACT_VIEW_SIZE || chunk[chunk.length - 1] !== 0) return chunk;
  let end = chunk.length;
  while (end > 0 && chunk[end - 1] === 0) end--;
  return chunk.subarray(0, end);
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
