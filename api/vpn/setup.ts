import type { ApiConfig } from "../platform/config";
import type { VpnServerFileEntry } from "../platform/vpn-servers-file";
import { NodeTokens } from "./node-tokens";
import { type VpnServer, serversFrom } from "./servers";

/**
 * Manual setup as this deployment runs it (docs/decisions/058): the servers configurations can name
 * and the tokens the VPN servers read with. null while it is off (outside sandbox mode without
 * VPN_NODE_TOKENS): the servers' endpoints answer 404 and the page says it is not available.
 */
export interface VpnSetup {
  servers: readonly VpnServer[];
  nodeTokens: NodeTokens;
}

/** What sandbox mode brings (api/sandboxes/vpn.ts): its seeded servers and its published node token. */
export interface VpnSandbox {
  servers: readonly VpnServerFileEntry[];
  nodeToken: string;
}

export function createVpnSetup(config: ApiConfig, sandbox: VpnSandbox | undefined): VpnSetup | null {
  const mode = config.integrations.vpn;
  if (mode === "off") return null;
  // The sandbox's list and token only in sandbox mode: a missing credential never turns a stand-in on.
  const standIn = config.sandbox ? sandbox : undefined;
  const entries = config.vpn.servers ?? standIn?.servers;
  if (!entries) throw new Error("Manual setup needs VPN_SERVERS_FILE outside sandbox mode.");
  const tokens = [...config.vpn.nodeTokens, ...(standIn ? [standIn.nodeToken] : [])];
  return { servers: serversFrom(entries), nodeTokens: new NodeTokens(tokens) };
}
