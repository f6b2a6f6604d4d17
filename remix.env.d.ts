/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

declare module "@remix-run/server-runtime" {
  interface Future {
    v3_singleFetch: true;
  }
}

export {};

declare module "@remix-run/node" {
  interface AppLoadContext {
    /** Per-request Content-Security-Policy nonce set by server.ts. */
    cspNonce: string;
    /** The browser's address as Express sees it (honours TRUST_PROXY). */
    clientIp: string;
    /**
     * This request's id (server.ts: a trusted proxy's X-Request-Id, or a new one); the API client sends
     * it on every call so the API's log lines carry it. Optional so that loader tests may leave it out.
     */
    requestId?: string;
  }
}
