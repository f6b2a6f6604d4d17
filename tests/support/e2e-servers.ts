/**
 * Where an e2e server on `port` keeps its database and log: one directory per port, so that runs on other
 * ports (E2E_PORT) never share or delete one. playwright.config.ts starts a server on E2E_PORT and, for the
 * specs that move the test clock, three on the next ports (the clock specs, and the dunning spec in each mode).
 */
export function e2eDataDir(port: number): string {
  return port === 3100 ? "data/e2e" : `data/e2e-${port}`;
}
