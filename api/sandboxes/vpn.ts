import type { VpnServerFileEntry } from "../platform/vpn-servers-file";

/*
 * Manual setup's stand-ins (issue 34, docs/decisions/058): the servers a sandbox lists when no
 * VPN_SERVERS_FILE is given, and the node token the sandbox's VPN servers would use. Thirteen servers
 * in eleven countries, one of them offline; their keys are real X25519 public keys (made once with
 * node:crypto, the private halves thrown away), so every configuration made in the sandbox is one
 * wg-quick reads. The hostnames are under .example (RFC 2606): nothing resolves them.
 */

/** Published: accepted as a node token in sandbox mode only (README, "Manual setup"). */
export const VPN_SANDBOX_NODE_TOKEN = "sandbox-node-token";

const server = (hostname: string, country_code: string, country: string, city: string, wireguard_public_key: string, online = true): VpnServerFileEntry => ({
  hostname,
  country_code,
  country,
  city,
  wireguard_public_key,
  endpoint: `${hostname}:51820`,
  online,
});

export const VPN_SANDBOX_SERVERS: readonly VpnServerFileEntry[] = [
  server("de-fra-wg-001.vpn.example", "DE", "Germany", "Frankfurt", "2buQ8AFLdNI8jgCK1JIkMdhsMBjCGv8iYD3GBSAFsFE="),
  server("de-ber-wg-001.vpn.example", "DE", "Germany", "Berlin", "/J2PRsa1JyddNmmTdKPA3Vdd7qJpGb8rfODP22TeyTI="),
  server("nl-ams-wg-001.vpn.example", "NL", "Netherlands", "Amsterdam", "wR0+EBRkpi0tno1jDQiZZX8PlHimlt/hmdnn+edZp0w="),
  server("gb-lon-wg-001.vpn.example", "GB", "United Kingdom", "London", "OUqx5qD4WnJqA5oMNsnAwDF4NFaFRVLzUiLz+7j5SU8="),
  server("fr-par-wg-001.vpn.example", "FR", "France", "Paris", "QcxtR+ifXvo2pE7H+eru7yn2XMNaJZ57r0BCj352t0U="),
  server("se-sto-wg-001.vpn.example", "SE", "Sweden", "Stockholm", "UpjAhBI42m4GaW5FsfQqi8/PUjP6yJWcIL+ajf1kenU="),
  server("ch-zrh-wg-001.vpn.example", "CH", "Switzerland", "Zurich", "iN6i3Rr/4BWZTGaZMLlQy5a0J17IZx892jwiFYhamwk="),
  server("us-nyc-wg-001.vpn.example", "US", "United States", "New York", "Na2FLiTIt1P/ZDYZ+PZ2anQBCcfeFOQHyiz0fL4CxCU="),
  server("us-lax-wg-001.vpn.example", "US", "United States", "Los Angeles", "JVCmonSRBPJtUtuqamAR7MNGfpqbX0LPsIOD9grF7TU="),
  server("ca-tor-wg-001.vpn.example", "CA", "Canada", "Toronto", "jSkT4Fyt9koyS1FFIkLodsANpvlZTqPMrjd/Q7EHyFE="),
  server("jp-tyo-wg-001.vpn.example", "JP", "Japan", "Tokyo", "dT2u4Q1D+XdxSwQtLe/1GR5q7T7IoI2A7NtzDcQ2RlQ="),
  server("au-syd-wg-001.vpn.example", "AU", "Australia", "Sydney", "h6TWHz46rapnR7e+Dg0RhsFql8Au898xl6SNc7ZJlCA="),
  // Offline, so that the portal's select and the API's refusal of an offline server can be seen.
  server("sg-sin-wg-001.vpn.example", "SG", "Singapore", "Singapore", "jga4ylVDieN6fTl4vIbIGbVskxsQXq2Rwv+bLME3BAk=", false),
];
