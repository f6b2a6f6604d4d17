import { z } from "zod";
import { route } from "../contract/route";
import {
  DEVICE_MESSAGES,
  DeviceSchema,
  assertOwnUser,
  listDevices,
  terminateDevice,
  terminateOtherDevices,
} from "../../identity/devices";
import { revokeSessions } from "../../identity/sessions";
import { noteSecurityEvent } from "../../identity/sign-in-alerts";
import { eventSource } from "../security";
import { ID_SCHEMA, body, idField } from "../validation";

const userIdField = () =>
  idField("user id")
    .optional()
    .meta({
      description: "The caller's own user id, as the spec's client sends it; any other id is refused (403). May be left out.",
      override: ID_SCHEMA,
    });

const listQuery = z.object({ user_id: userIdField() });

const terminateSchema = body({
  user_id: userIdField(),
  device_id: idField("device id").meta({ description: "id from GET /api/devices (a number, or digits in form data)." }),
}).meta({ id: "TerminateDeviceRequest" });

const terminateAllSchema = body({ user_id: userIdField() }).meta({ id: "TerminateAllDevicesRequest" });

const terminateOthersSchema = body({ user_id: userIdField() }).meta({ id: "TerminateOtherDevicesRequest" });

const FORBIDDEN = `'${DEVICE_MESSAGES.forbidden}' (user_id is not the caller's own id)`;

export const deviceRoutes = [
  // The spec's client reads the list at `data[0]` (commerce §7: "GET with user_id; reads data[0]"),
  // so `data` is an array whose only element is the device list: `data: [Device[]]`. Answering the
  // list itself would make data[0] the first device; this keeps the spec's client working unchanged.
  route({
    method: "get",
    path: "/api/devices",
    operationId: "listDevices",
    tags: ["Account"],
    summary: "Connected devices",
    description:
      "The caller's devices that still have a live (unrevoked, unexpired) token, most recent sign-in first; `current` marks the device of this request's token. `data` is `[devices]`: an array whose first (only) element is the device list, because the spec's client reads `data[0]`.",
    auth: true,
    query: listQuery,
    success: {
      description: "data[0]: the device list",
      // A one-element array, said with minItems/maxItems (prefixItems with items: false is valid
      // OpenAPI 3.1, but common tools reject it).
      data: z.array(z.array(DeviceSchema)).length(1).meta({ description: "A one-element array: [the device list]." }),
    },
    errors: { 403: FORBIDDEN },
    async handler({ ctx, auth, query }) {
      assertOwnUser(query.user_id, auth.user.id);
      const devices = await listDevices(ctx.db, auth.user.id, auth.deviceId);
      const data: [typeof devices] = [devices];
      return { data, message: DEVICE_MESSAGES.listed };
    },
  }),

  route({
    method: "post",
    path: "/api/devices/terminate",
    operationId: "terminateDevice",
    tags: ["Account"],
    summary: "Terminate one device",
    description:
      "Revokes every token of one of the caller's devices at once: its next request answers 401, and the one-time SSO tokens and desktop codes its sessions made stop working. The caller's own device may be terminated (this signs the caller out after this answer).",
    auth: true,
    body: terminateSchema,
    success: {
      description: `'${DEVICE_MESSAGES.terminated}'`,
      data: z.strictObject({
        device_id: z.int(),
        current: z.boolean().meta({ description: "true when the caller terminated its own device (its token is now revoked)." }),
      }),
    },
    errors: { 403: FORBIDDEN, 404: `'${DEVICE_MESSAGES.notFound}' (unknown device, or another user's)` },
    async handler({ ctx, auth, body: input }) {
      assertOwnUser(input.user_id, auth.user.id);
      await terminateDevice(ctx.db, auth.user.id, input.device_id);
      return {
        data: { device_id: input.device_id, current: input.device_id === auth.deviceId },
        message: DEVICE_MESSAGES.terminated,
      };
    },
  }),

  route({
    method: "post",
    path: "/api/devices/terminate-all",
    operationId: "terminateAllDevices",
    tags: ["Account"],
    summary: "Terminate every device",
    description:
      "Revokes every token of the caller, including the one making this request: the caller is signed out everywhere (the portal then goes to /login). One-time SSO tokens and desktop codes made by those sessions and waiting two-factor sign-ins stop working too.",
    auth: true,
    body: terminateAllSchema,
    success: {
      description: `'${DEVICE_MESSAGES.allTerminated}'`,
      data: z.strictObject({ revoked: z.int().meta({ description: "How many tokens were revoked." }) }),
    },
    errors: { 403: FORBIDDEN },
    async handler({ ctx, req, auth, body: input }) {
      assertOwnUser(input.user_id, auth.user.id);
      const revoked = await ctx.db.transaction().execute((trx) => revokeSessions(trx, { userId: auth.user.id, all: true }));
      await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "signed_out_everywhere", ...eventSource(req) });
      return { data: { revoked }, message: DEVICE_MESSAGES.allTerminated };
    },
  }),

  route({
    method: "post",
    path: "/api/devices/terminate-others",
    operationId: "terminateOtherDevices",
    tags: ["Account"],
    summary: "Sign out every other device",
    description:
      "Revokes every token of the caller but the one making this request: every other device is signed out (its next request answers 401) and drops out of the list, while this one stays signed in. One-time SSO tokens and desktop codes made by the other sessions and waiting two-factor sign-ins stop working too. Recorded as 'Signed out other devices' in the security log.",
    auth: true,
    body: terminateOthersSchema,
    success: {
      description: `'${DEVICE_MESSAGES.othersTerminated}'`,
      data: z.strictObject({ revoked: z.int().meta({ description: "How many tokens were revoked (0 when no other device was signed in)." }) }),
    },
    errors: { 403: FORBIDDEN },
    async handler({ ctx, req, auth, body: input }) {
      assertOwnUser(input.user_id, auth.user.id);
      const revoked = await terminateOtherDevices(ctx.db, auth.user.id, auth.tokenId);
      await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "signed_out_other_devices", ...eventSource(req) });
      return { data: { revoked }, message: DEVICE_MESSAGES.othersTerminated };
    },
  }),
];
