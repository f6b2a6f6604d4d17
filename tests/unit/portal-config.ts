import { type PortalConfig, setPortalConfig } from "../../app/config.server";
import { loadConfig } from "../../server/config";

/**
 * Gives the portal's modules their configuration as server.ts does at boot, read from `env` the way the
 * server reads its environment (in sandbox mode unless `env` says otherwise).
 */
export function setPortalConfigForTests(env: Record<string, string>): PortalConfig {
  const { portal } = loadConfig(
    { NODE_ENV: "test", SANDBOX: "true", ...env },
    {
      generatedSessionSecret: () => {
        throw new Error("Set SESSION_SECRET in a test's configuration.");
      },
    },
  );
  setPortalConfig(portal);
  return portal;
}
