import type { Server } from "node:http";

/** How long open requests may take to finish after SIGTERM/SIGINT before the process exits anyway. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * The graceful shutdown both servers use (server.ts and api/server.ts): on SIGTERM or SIGINT, stop
 * accepting connections, let open requests finish, run `close` (the API: mail, jobs, the database), then
 * exit: 0 when all of it closed, 1 when closing failed or took longer than SHUTDOWN_TIMEOUT_MS.
 */
export function exitGracefullyOnSignals(server: Server, close: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.info(`${signal} received: finishing open requests, then shutting down.`);
    const force = setTimeout(() => {
      console.error("Shutdown timed out; exiting.");
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    force.unref();
    server.close(async () => {
      try {
        await close();
        process.exit(0);
      } catch (error) {
        console.error("Error while shutting down:", error instanceof Error ? error.message : error);
        process.exit(1);
      }
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}
