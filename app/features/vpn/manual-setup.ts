import type { WireGuardPeerSettings } from "./wireguard-config";

// What the 'Manual setup' page shows (issue 34), as the loader and the action hand it to the page: the API's
// answers (GET /api/vpn/manual-setup, POST /api/vpn/configurations, POST /api/vpn/credentials; the contract
// is api/openapi.json) shaped for rendering. No Node module here: the page's components import it.

export const MANUAL_SETUP_PAGE = "/manual-setup";
export const CREATE_FORM = "wireguard-create";
export const CREDENTIALS_FORM = "service-credentials";
/** The 'Server' select's first option: the API picks the server. */
export const FASTEST = "fastest";

export type ServerOption = { value: string; label: string; disabled: boolean };
export type ServerGroup = { country: string; options: ServerOption[] };

export type ConfigurationView = {
  id: number;
  name: string;
  /** "Frankfurt, Germany" */
  server: string;
  createdAt: string;
  /** 'DD MMMM, Y' */
  created: string;
  lastHandshakeAt: string | null;
  /** 'YYYY-MM-DD HH:mm UTC', the server's rendering; the browser shows its own zone. */
  lastHandshake: string | null;
  paused: boolean;
};

/** A configuration just made. `server`: the server made the key pair (no JavaScript) and the whole file is here. */
export type CreatedConfiguration =
  | { by: "server"; name: string; fileName: string; text: string; downloadHref: string; qrCode: string }
  | { by: "browser"; name: string; fileName: string; publicKey: string; settings: WireGuardPeerSettings };

export type NewCredentials = { username: string; password: string; created: string };
