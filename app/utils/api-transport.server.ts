import http from "node:http";
import https from "node:https";

// The portal's calls to the product API go over node:http with kept-alive connections instead of the
// global fetch (undici): on loopback a call then costs about a third of the CPU (measured in
// docs/decisions/013-performance-budgets.md), and the signed-in pages make one or more per request.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * Node's agent drops an idle connection before the API's announced Keep-Alive timeout; should one still
 * be closed under a request, these methods are sent again on a new one (a POST never is).
 */
const RETRYABLE_METHODS = new Set(["GET", "HEAD"]);

/**
 * A fetch for openapi-fetch: sends `request` and gives back the whole answer as a Response, or
 * rejects (unreachable, reset, or not done within `timeoutMs`), which the API client treats as the
 * API being unavailable. No compression is asked for: the bytes never leave the data centre.
 */
export async function apiFetch(request: Request, timeoutMs: number): Promise<Response> {
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body) headers["content-length"] = String(body.length);
  try {
    return await send(request, headers, body, timeoutMs);
  } catch (error) {
    if ((error as { reusedSocket?: boolean }).reusedSocket && RETRYABLE_METHODS.has(request.method)) {
      return send(request, headers, body, timeoutMs);
    }
    throw error;
  }
}

function send(request: Request, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number): Promise<Response> {
  const url = new URL(request.url);
  const transport = url.protocol === "https:" ? https : http;
  const agent = url.protocol === "https:" ? agents["https:"] : agents["http:"];
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(url, { method: request.method, headers, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", fail);
      incoming.on("end", () => {
        clearTimeout(timer);
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, one);
        }
        const status = incoming.statusCode ?? 502;
        const bodyless = status === 204 || status === 205 || status === 304;
        resolve(new Response(bodyless ? null : Buffer.concat(chunks), { status, statusText: incoming.statusMessage, headers: answerHeaders }));
      });
    });
    const timer = setTimeout(() => outgoing.destroy(new Error(`The API did not answer within ${timeoutMs} ms`)), timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket }));
    }
    outgoing.on("error", fail);
    outgoing.end(body);
  });
}
