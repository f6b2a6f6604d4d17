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

/**
 * Sends one request to the API and gives back its whole answer, or rejects (unreachable, reset, or
 * not done within `timeoutMs`), which the API client treats as the API being unavailable. No
 * compression is asked for: the bytes never leave the data centre.
 */
export async function sendApiRequest(request: ApiRequest, timeoutMs: number): Promise<ApiAnswer> {
  const headers = request.body ? { ...request.headers, "Content-Length": String(request.body.length) } : request.headers;
  try {
    return await send(request, headers, timeoutMs);
  } catch (error) {
    if ((error as { reusedSocket?: boolean }).reusedSocket && RETRYABLE_METHODS.has(request.method)) {
      return send(request, headers, timeoutMs);
    }
    throw error;
  }
}

function send(request: ApiRequest, headers: Record<string, string>, timeoutMs: number): Promise<ApiAnswer> {
  const url = new URL(request.url);
  const secure = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? https : http).request(
      url,
      { method: request.method, headers, agent: secure ? agents["https:"] : agents["http:"] },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", fail);
        incoming.on("end", () => {
          clearTimeout(timer);
          resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        });
      },
    );
    const timer = setTimeout(() => outgoing.destroy(new Error(`The API did not answer within ${timeoutMs} ms`)), timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket }));
    }
    outgoing.on("error", fail);
    outgoing.end(request.body);
  });
}
