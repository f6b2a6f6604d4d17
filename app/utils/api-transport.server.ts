import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";

// The portal's calls to the product API go over node:http with kept-alive connections, as plain
// buffers: no fetch Request, Headers or Response objects. On loopback that is what a call costs most
// (measured in docs/decisions/013-performance-budgets.md), and the signed-in pages make one or more
// per request.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * Node's agent drops an idle connection before the API's announced Keep-Alive timeout; should one still
 * be closed under a request, these methods are sent again on a new one (a POST never is).
 */
const RETRYABLE_METHODS = new Set(["GET", "HEAD"]);

export interface ApiRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface ApiAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** When a call must be done by, and what ends it sooner. */
export interface ApiDeadline {
  /** performance.now() by which the answer must be in: all calls of one page request share it. */
  at: number;
  /** Ends the call at once (the API is known to be down). */
  signal?: AbortSignal;
}

/** The call ran out of its time or was ended: the API is not answering, so it is not sent again. */
class ApiGaveUp extends Error {}

/**
 * Sends one request to the API and gives back its whole answer, or rejects (unreachable, reset, not
 * done by the deadline, or ended by its signal), which the API client treats as the API being
 * unavailable. No compression is asked for: the bytes never leave the data centre.
 */
export async function sendApiRequest(request: ApiRequest, deadline: ApiDeadline): Promise<ApiAnswer> {
  const headers = request.body ? { ...request.headers, "Content-Length": String(request.body.length) } : request.headers;
  try {
    return await send(request, headers, deadline);
  } catch (error) {
    // A kept-alive connection the API had closed fails at once: sent again on a new one, within the same
    // deadline. A call that timed out on one is not (the API hangs: that would double the wait).
    if (!(error instanceof ApiGaveUp) && (error as { reusedSocket?: boolean }).reusedSocket && RETRYABLE_METHODS.has(request.method)) {
      return send(request, headers, deadline);
    }
    throw error;
  }
}

function send(request: ApiRequest, headers: Record<string, string>, deadline: ApiDeadline): Promise<ApiAnswer> {
  const url = new URL(request.url);
  const secure = url.protocol === "https:";
  const timeoutMs = Math.round(deadline.at - performance.now());
  if (deadline.signal?.aborted) return Promise.reject(new ApiGaveUp("The API is down"));
  if (timeoutMs <= 0) return Promise.reject(new ApiGaveUp("No time was left for the API to answer"));
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? https : http).request(
      url,
      { method: request.method, headers, agent: secure ? agents["https:"] : agents["http:"] },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", fail);
        incoming.on("end", () => {
          done();
          resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        });
      },
    );
    // Destroying the request also destroys its socket: a hung connection never goes back to the agent.
    const giveUp = (message: string) => outgoing.destroy(new ApiGaveUp(message));
    const timer = setTimeout(() => giveUp(`The API did not answer within ${timeoutMs} ms`), timeoutMs);
    const onDown = () => giveUp("The API is down");
    deadline.signal?.addEventListener("abort", onDown, { once: true });
    function done() {
      clearTimeout(timer);
      deadline.signal?.removeEventListener("abort", onDown);
    }
    function fail(error: Error) {
      done();
      reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket }));
    }
    outgoing.on("error", fail);
    outgoing.end(request.body);
  });
}
