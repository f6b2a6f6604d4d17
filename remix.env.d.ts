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
  }
}
