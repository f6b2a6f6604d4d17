import { createContext, useContext } from "react";

// The CSP nonce reaches React through context: entry.server provides it; in the browser it is ""
// (browsers hide nonce attributes from scripts, and hydration does not need it).
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

export function useNonce() {
  return useContext(NonceContext);
}
