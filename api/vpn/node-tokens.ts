import { createHash, timingSafeEqual } from "node:crypto";

/*
 * The VPN servers' bearer tokens (VPN_NODE_TOKENS; in sandbox mode also 'sandbox-node-token'). Both
 * sides are hashed first, so every comparison is of 32 bytes whatever was sent, and every configured
 * token is compared (no early exit), so the time taken says nothing about which one nearly matched.
 */
export class NodeTokens {
  private readonly digests: Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest);
  }

  /** Whether `Authorization: Bearer <token>` names one of the tokens. */
  accepts(authorization: string | undefined): boolean {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
    if (!match) return false;
    const presented = digest(match[1]!);
    let accepted = false;
    for (const known of this.digests) accepted = timingSafeEqual(known, presented) || accepted;
    return accepted;
  }
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
