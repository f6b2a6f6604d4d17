import type { Request, Response } from "express";
import { z } from "zod";
import { noteSecurityEvent } from "../../identity/sign-in-alerts";
import { DomainError } from "../../platform/errors";
import { IPV4_NETWORK, IPV6_NETWORK } from "../../vpn/addresses";
import {
  CONFIGURATION_LIMIT,
  CONFIGURATION_MESSAGES,
  CONFIGURATION_NAME_MAX,
  ConfigurationSchema,
  WireGuardSettingsSchema,
  createConfiguration,
  listConfigurations,
  publicKeyField,
  recordHandshakes,
  revokeConfiguration,
} from "../../vpn/configurations";
import { CREDENTIALS_MESSAGES, CredentialsSchema, NewCredentialsSchema, authenticateService, credentialsOf, issueCredentials } from "../../vpn/credentials";
import { PeerSchema, peersList, peersSince } from "../../vpn/peers";
import { hasPlan } from "../../vpn/plan";
import { FASTEST, SERVER_MESSAGES, VpnServerChoiceSchema, VpnServerSchema, chooseServer, publicServer, serverChoice } from "../../vpn/servers";
import type { VpnSetup } from "../../vpn/setup";
import type { ApiContext } from "../context";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import { sendOk } from "../envelope";
import { eventSource } from "../security";
import { body, idField, passwordField, requiredText } from "../validation";

// Manual setup (issue 34, docs/decisions/058): the customer's WireGuard configurations and service
// credentials, and what the VPN servers read: the server list, the peers, handshakes and credential
// checks. The rules are in api/vpn/.

const OFF = `'${CONFIGURATION_MESSAGES.notAvailable}' (manual setup is off: outside sandbox mode without VPN_NODE_TOKENS)`;

/** Manual setup as configured, or 404 while it is off (as every integration without its credentials). */
function setupOf(ctx: ApiContext): VpnSetup {
  if (!ctx.vpn) throw new DomainError("not_found", CONFIGURATION_MESSAGES.notAvailable);
  return ctx.vpn;
}

/** The VPN servers' endpoints: 404 while manual setup is off, then 401 without one of their tokens. */
async function requireNode({ ctx, req }: { ctx: ApiContext; req: Request; res: Response }): Promise<void> {
  if (!setupOf(ctx).nodeTokens.accepts(req.get("authorization"))) {
    throw new DomainError("unauthenticated", "A VPN server token is required.", { headers: { "WWW-Authenticate": 'Bearer realm="vpn-servers"' } });
  }
}

const NODE_ERRORS = {
  401: "'A VPN server token is required.' (no bearer token, or not one of VPN_NODE_TOKENS)",
  404: OFF,
};

const ManualSetupSchema = z
  .strictObject({
    available: z.boolean().meta({ description: "false outside sandbox mode without VPN_NODE_TOKENS: the page says manual setup is not available." }),
    has_plan: z.boolean().meta({ description: "false for a Free account (no active plan): the page offers 'See plans' instead of the form." }),
    limit: z.int().meta({ description: "Live configurations an account with a plan may have.", examples: [CONFIGURATION_LIMIT] }),
    servers: z.array(VpnServerChoiceSchema).meta({ description: "For the 'Server' select, in the list's order (empty while unavailable); 'Fastest' (value \"fastest\") is the portal's own option." }),
    configurations: z.array(ConfigurationSchema).meta({ description: "Newest first; revoked ones are not listed." }),
    credentials: CredentialsSchema.nullable().meta({ description: "The service credentials' username (never the password), or null before 'Create credentials'." }),
  })
  .meta({ id: "ManualSetup" });

const nameField = () =>
  requiredText("name", { max: CONFIGURATION_NAME_MAX }).meta({
    description: `The customer's name for the configuration ('Router'): 1 to ${CONFIGURATION_NAME_MAX} characters (trimmed), no control or bidirectional characters.`,
  });

const createSchema = body({
  name: nameField(),
  server: requiredText("server", { max: 253 }).meta({
    description: `"${FASTEST}" (the API picks the online server with the fewest configurations) or a hostname from the list. Unknown: '${SERVER_MESSAGES.unknown}'; offline: '${SERVER_MESSAGES.offline}'.`,
    examples: [FASTEST, "de-fra-wg-001.vpn.example"],
  }),
  public_key: publicKeyField(),
}).meta({ id: "CreateVpnConfigurationRequest" });

const revokeParams = z.object({ id: idField("configuration id").meta({ description: "VpnConfiguration.id" }) });

const handshakesSchema = body({
  handshakes: z
    .array(
      z.strictObject({
        public_key: publicKeyField(),
        at: z.iso.datetime({ offset: true, error: "The handshake time must be an ISO 8601 date and time." }).transform((v) => new Date(v)),
      }),
      { error: "The handshakes field must be a list." },
    )
    .max(500, { error: "At most 500 handshakes per request." })
    .meta({ description: "The latest handshake per public key, in the server's time (ISO 8601); at most 500 per request." }),
}).meta({ id: "VpnHandshakesRequest" });

const authenticateSchema = body({
  username: requiredText("username", { max: 64 }).meta({ description: "The service credentials' username (any case)." }),
  password: passwordField(),
}).meta({ id: "VpnAuthenticateRequest" });

const SINCE_INVALID = "The since field must be a revision number.";
const SINCE_AHEAD = "This revision is newer than the list: fetch the whole list.";

const peersQuery = z.object({
  since: z
    .string({ error: SINCE_INVALID })
    .regex(/^\d{1,15}$/, { error: SINCE_INVALID })
    .transform(Number)
    .optional()
    .meta({
      description: "A `revision` of an earlier answer: the answer is then what changed after it (`added`, `removed`) instead of the whole list.",
      override: { type: "string", pattern: "^\\d{1,15}$" },
    }),
});

const revision = () => z.int().meta({ description: "The list's revision: the ETag's number, and the `since` of the next incremental request." });
const generatedAt = () => z.string().meta({ format: "date-time" });

const PeersSchema = z.union([
  z.strictObject({ peers: z.array(PeerSchema), revision: revision(), generated_at: generatedAt() }).meta({ id: "VpnPeers", description: "Without `since`: every peer the servers must accept now." }),
  z
    .strictObject({
      added: z.array(PeerSchema).meta({ description: "Peers to have (add, or update their addresses)." }),
      removed: z.array(z.string()).meta({ description: "Public keys to drop (revoked, or their account's plan ended). Applying both is idempotent." }),
      revision: revision(),
      generated_at: generatedAt(),
    })
    .meta({ id: "VpnPeerChanges", description: "With `since`: what changed after that revision." }),
]);

const etagOf = (revisionNumber: number) => `W/"peers-${revisionNumber}"`;

/** If-None-Match names this ETag (or *): weak comparison, as RFC 9110 has it for If-None-Match. */
function notModified(req: Request, etag: string): boolean {
  const header = req.get("if-none-match");
  if (!header) return false;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === bare;
  });
}

export const vpnRoutes = [
  route({
    method: "get",
    path: "/api/vpn/manual-setup",
    operationId: "vpnManualSetup",
    tags: ["Manual setup"],
    summary: "Everything the 'Manual setup' page shows",
    description: `Whether manual setup is available, whether the account has a plan, the limit, the servers for the select, the account's configurations (each 'active', or 'paused' while the account has no plan: the servers do not accept it then, and do again once the plan is renewed) and its service credentials' username. Addresses come from ${IPV4_NETWORK} and ${IPV6_NETWORK}.`,
    auth: true,
    success: { description: `'${CONFIGURATION_MESSAGES.listed}'`, data: ManualSetupSchema },
    async handler({ ctx, auth }) {
      const now = ctx.clock.now();
      const plan = await hasPlan(ctx.db, auth.user.id, now);
      const [configurations, credentials] = await Promise.all([listConfigurations(ctx.db, auth.user.id, plan), credentialsOf(ctx.db, auth.user.id)]);
      return {
        data: {
          available: ctx.vpn !== null,
          has_plan: plan,
          limit: CONFIGURATION_LIMIT,
          servers: ctx.vpn ? ctx.vpn.servers.map(serverChoice) : [],
          configurations,
          credentials,
        },
        message: CONFIGURATION_MESSAGES.listed,
      };
    },
  }),

  route({
    method: "post",
    path: "/api/vpn/configurations",
    operationId: "vpnCreateConfiguration",
    tags: ["Manual setup"],
    summary: "Register a WireGuard public key and get the configuration's settings",
    description: `Registers the device's public key (the private key never reaches the API: the browser, or the portal's server without JavaScript, makes the pair) for a server, and hands out one IPv4 address from ${IPV4_NETWORK} and one IPv6 address from ${IPV6_NETWORK}. Answers the configuration and every setting of its wg-quick file but the private key. At most ${CONFIGURATION_LIMIT} live configurations per account, reserved atomically (a parallel burst never passes it). Recorded as 'WireGuard configuration created' in the security activity. The key is in the servers' peers list from the next revision.`,
    auth: true,
    body: createSchema,
    success: {
      description: `'${CONFIGURATION_MESSAGES.created}'`,
      data: z.strictObject({ configuration: ConfigurationSchema, wireguard: WireGuardSettingsSchema }),
    },
    errors: {
      403: `'${CONFIGURATION_MESSAGES.planRequired}' (code plan_required: a Free account)`,
      404: OFF,
      409: `'${CONFIGURATION_MESSAGES.keyTaken}' (code public_key_taken, under errors.fields.public_key): the key is registered, on this account or another, revoked or not`,
      422: `Validation (errors.fields: name, server, public_key — '${CONFIGURATION_MESSAGES.keyFormat}'), or '${CONFIGURATION_MESSAGES.limit}' (code configuration_limit)`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const setup = setupOf(ctx);
      const now = ctx.clock.now();
      if (!(await hasPlan(ctx.db, auth.user.id, now))) throw new DomainError("plan_required", CONFIGURATION_MESSAGES.planRequired);
      const server = await chooseServer(ctx.db, setup.servers, input.server);
      const created = await createConfiguration(ctx.db, { userId: auth.user.id, name: input.name, server, publicKey: input.public_key, now });
      await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "wireguard_configuration_created", detail: `${input.name} (${server.hostname})`, ...eventSource(req) });
      return { data: created, message: CONFIGURATION_MESSAGES.created };
    },
  }),

  route({
    method: "post",
    path: "/api/vpn/configurations/{id}/revoke",
    operationId: "vpnRevokeConfiguration",
    tags: ["Manual setup"],
    summary: "Revoke a WireGuard configuration",
    description:
      "Its key leaves the servers' peers list at once (the next revision); the configuration leaves the account's list. Revoking one already revoked answers the same. Recorded as 'WireGuard configuration revoked' in the security activity.",
    auth: true,
    params: revokeParams,
    success: { description: `'${CONFIGURATION_MESSAGES.revoked}'`, data: z.strictObject({ revoked: z.literal(true) }) },
    errors: { 404: `'${CONFIGURATION_MESSAGES.notFound}' (not the account's), or ${OFF}` },
    async handler({ ctx, req, auth, params }) {
      setupOf(ctx);
      const revoked = await revokeConfiguration(ctx.db, auth.user.id, params.id, ctx.clock.now());
      if (revoked) await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "wireguard_configuration_revoked", detail: revoked.name, ...eventSource(req) });
      return { data: { revoked: true as const }, message: CONFIGURATION_MESSAGES.revoked };
    },
  }),

  route({
    method: "post",
    path: "/api/vpn/credentials",
    operationId: "vpnIssueCredentials",
    tags: ["Manual setup"],
    summary: "Create or reset the service credentials (OpenVPN, IKEv2)",
    description:
      "The first call makes the account's username and password (it needs a plan); every later one makes a new password for the same username, and the old one stops working at once (a reset needs no plan: an old password can always be shut out). The password is in this answer only: the API keeps its argon2id hash. Recorded as 'Service credentials created' or 'Service credentials reset' in the security activity.",
    auth: true,
    success: { description: `'${CREDENTIALS_MESSAGES.created}' or '${CREDENTIALS_MESSAGES.reset}'`, data: NewCredentialsSchema },
    errors: { 403: `'${CONFIGURATION_MESSAGES.planRequired}' (code plan_required: a Free account without credentials)`, 404: OFF },
    async handler({ ctx, req, auth }) {
      setupOf(ctx);
      const now = ctx.clock.now();
      const issued = await issueCredentials(ctx.db, ctx.passwords, { userId: auth.user.id, hasPlan: await hasPlan(ctx.db, auth.user.id, now), now });
      await noteSecurityEvent(ctx, {
        userId: auth.user.id,
        kind: issued.created ? "service_credentials_created" : "service_credentials_reset",
        detail: issued.username,
        ...eventSource(req),
      });
      const { created, ...data } = issued;
      return { data, message: created ? CREDENTIALS_MESSAGES.created : CREDENTIALS_MESSAGES.reset };
    },
  }),

  route({
    method: "get",
    path: "/api/vpn/servers",
    operationId: "vpnServers",
    tags: ["VPN servers"],
    summary: "The VPN servers",
    description:
      "Public and cacheable (`Cache-Control: public, max-age=60, s-maxage=300`): every server with its place, WireGuard public key and endpoint, and whether it is in rotation. From VPN_SERVERS_FILE; in sandbox mode without it, the sandbox's seeded list.",
    auth: false,
    success: {
      description: "The servers",
      data: z.strictObject({ servers: z.array(VpnServerSchema) }),
    },
    errors: { 404: OFF },
    handler({ ctx, res }) {
      const setup = setupOf(ctx);
      // The same for everyone and changed only by a deploy: a CDN may keep it a few minutes.
      res.setHeader("Cache-Control", "public, max-age=60, s-maxage=300");
      return { data: { servers: setup.servers.map(publicServer) } };
    },
  }),

  route({
    method: "get",
    path: "/api/vpn/peers",
    operationId: "vpnPeers",
    tags: ["VPN servers"],
    summary: "The peers the VPN servers must accept now",
    description:
      "Every live configuration of an account that has a plan now: its public key and addresses. Weak `ETag` `W/\"peers-<revision>\"`; a server polling with `If-None-Match` gets 304 while nothing changed. `?since=<revision>` answers what changed after that revision instead: `added` (peers to have) and `removed` (keys to drop). A revoked configuration, or one whose account's plan ended, is removed from the next revision on; a renewed plan brings its configurations back.",
    auth: false,
    node: true,
    before: requireNode,
    query: peersQuery,
    success: {
      description: "The peers (or the changes since a revision), with the ETag",
      raw: { mediaType: "application/json", schema: z.object({ status: z.literal(true), success: z.literal(true), message: z.string(), data: PeersSchema }) },
      headers: z.object({ ETag: z.string().meta({ description: 'W/"peers-<revision>"' }) }),
    },
    errors: {
      ...NODE_ERRORS,
      304: { description: "Not modified: If-None-Match names the current ETag", headers: z.object({ ETag: z.string() }) },
      422: `'${SINCE_INVALID}', or '${SINCE_AHEAD}' (since is ahead of the list)`,
    },
    async handler({ ctx, req, res, query }) {
      const now = ctx.clock.now();
      const generated_at = now.toISOString();
      const answer =
        query.since === undefined
          ? await peersList(ctx.db, now)
          : await peersSince(ctx.db, now, query.since);
      if (!answer) throw new DomainError("validation_failed", SINCE_AHEAD, { field: "since" });
      const etag = etagOf(answer.revision);
      res.setHeader("ETag", etag);
      // Private to the servers, and always asked again (cheaply, with the ETag).
      res.setHeader("Cache-Control", "private, no-cache");
      if (notModified(req, etag)) {
        res.status(304).end();
        return;
      }
      sendOk(res, { ...answer, generated_at }, "Peers");
    },
  }),

  route({
    method: "post",
    path: "/api/vpn/handshakes",
    operationId: "vpnHandshakes",
    tags: ["VPN servers"],
    summary: "Report the latest handshakes",
    description:
      "A VPN server reports the latest handshake per public key (`wg show <if> latest-handshakes`); the account's page shows it as 'Last handshake'. Only live configurations are updated, and only forward in time. `recorded`: how many moved.",
    auth: false,
    node: true,
    before: requireNode,
    body: handshakesSchema,
    success: { description: "'Handshakes recorded.'", data: z.strictObject({ recorded: z.int() }) },
    errors: NODE_ERRORS,
    async handler({ ctx, body: input }) {
      const recorded = await recordHandshakes(ctx.db, input.handshakes);
      return { data: { recorded }, message: "Handshakes recorded." };
    },
  }),

  route({
    method: "post",
    path: "/api/vpn/authenticate",
    operationId: "vpnAuthenticate",
    tags: ["VPN servers"],
    summary: "Check service credentials (OpenVPN, IKEv2)",
    description:
      "200 when the username and password are right and the account has a plan now; 401 otherwise ('Wrong username or password.' or 'This account has no plan.'). Wrong passwords are counted per username (VPN_AUTH_MAX_FAILURES_PER_USERNAME per VPN_AUTH_FAILURE_WINDOW_SECONDS, shared by every instance and reserved before the check, so a parallel burst gets no more tries); over it, 429 with Retry-After, for the right password too, until the window ends.",
    auth: false,
    node: true,
    before: requireNode,
    body: authenticateSchema,
    success: { description: `'${CREDENTIALS_MESSAGES.accepted}'`, data: z.strictObject({ ok: z.literal(true) }) },
    errors: {
      401: `'${CREDENTIALS_MESSAGES.wrong}' or '${CREDENTIALS_MESSAGES.noPlan}' (code invalid_credentials), or 'A VPN server token is required.' (code unauthenticated)`,
      404: OFF,
      429: rateLimited("'Too many failed attempts for this username. Please try again in N minutes.'"),
    },
    async handler({ ctx, body: input }) {
      const limits = { limiter: ctx.limiter, maxFailures: ctx.config.vpn.authMaxFailuresPerUsername, windowSeconds: ctx.config.vpn.authFailureWindowSeconds };
      await authenticateService(ctx.db, ctx.passwords, limits, input, (userId) => hasPlan(ctx.db, userId, ctx.clock.now()));
      return { data: { ok: true as const }, message: CREDENTIALS_MESSAGES.accepted };
    },
  }),
];
