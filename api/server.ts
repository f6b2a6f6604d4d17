/**
 * Standalone API server (`npm run api` runs its bundle): loads the config, builds the API and
 * serves it on API_PORT, with a graceful shutdown on SIGTERM/SIGINT.
 */
import { createServer } from "node:http";
import { createApi } from "./http/app";
import { standaloneApp } from "./http/standalone";
import { integrationsLine, loadApiConfig } from "./platform/config";
import { consoleStyle, createLogger, routeConsoleTo } from "./platform/logger";
import { exitGracefullyOnSignals } from "./platform/shutdown";

// JSON lines from the start; LOG_LEVEL applies once the configuration is read.
const rootLog = createLogger("info").child({ name: "api" });
routeConsoleTo(rootLog);

async function main(): Promise<void> {
  let config: ReturnType<typeof loadApiConfig>;
  try {
    // The one place the standalone API reads its environment (docs/decisions/025).
    config = loadApiConfig(process.env);
  } catch (error) {
    console.error(`The API cannot start:\n${(error as Error).message}\nSee .env.example for every variable and its default.`);
    process.exit(1);
  }
  rootLog.level = config.logLevel;
  const api = await createApi({ config, logger: consoleStyle(rootLog) });

  const server = createServer(standaloneApp(api));
  server.keepAliveTimeout = 65_000;
  server.listen(config.apiPort, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.apiPort;
    console.info(`API listening on http://localhost:${port}/api (${config.database.kind}${config.sandbox ? ", sandbox mode" : ""})`);
  });

  console.info(integrationsLine(config));

  exitGracefullyOnSignals(server, () => api.close());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
