import { type RequestListener, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Serves `handler` on 127.0.0.1 on a free port (the sandboxes' REST APIs, which their SDK clients need a host for). */
export async function listenOnLoopback(handler: RequestListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
