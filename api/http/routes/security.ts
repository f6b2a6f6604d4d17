import { z } from "zod";
import { route } from "../contract/route";
import {
  SECURITY_EVENTS_PAGE_SIZE,
  SECURITY_EVENT_RETENTION_DAYS,
  SecurityEventSchema,
  detailIn,
  listSecurityEvents,
} from "../../identity/security-events";
import { requestLanguage } from "../envelope";
import { setSignInAlerts, signInAlertsOn } from "../../identity/sign-in-alerts";
import { body, flagField, integerOrDigits } from "../validation";

/*
 * The security page's API (issue 22, docs/decisions/035): the caller's recent security events, 20 a
 * page, and the new sign-in alert setting.
 */

const MAX_PAGE = 100_000;
const PAGE_INVALID = `The page must be a whole number from 1 to ${MAX_PAGE}.`;

const eventsQuery = z.object({
  page: z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === null || value === "") return 1;
      const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d{1,6}\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PAGE) {
        ctx.addIssue({ code: "custom", message: PAGE_INVALID });
        return z.NEVER;
      }
      return n;
    })
    .meta({
      description: `From 1 to ${MAX_PAGE}; 1 (the newest events) when left out.`,
      override: { anyOf: [...integerOrDigits({ min: 1, maxDigits: 6, max: MAX_PAGE }).anyOf, { const: "" }], default: 1 },
    }),
});

const SecurityEventItemSchema = SecurityEventSchema.extend({
  browser: z.string().nullable().meta({ description: "The browser and system read from user_agent and the client hints sent with it ('Firefox 133 on Windows 11'), or null." }),
}).meta({ id: "SecurityEventItem" });

const EventsPageSchema = z
  .strictObject({
    events: z.array(SecurityEventItemSchema).meta({ description: `Newest first, at most ${SECURITY_EVENTS_PAGE_SIZE}.` }),
    page: z.int(),
    has_more: z.boolean().meta({ description: "true when an older page exists." }),
    retention_days: z.literal(SECURITY_EVENT_RETENTION_DAYS).meta({ override: { type: "integer" } }),
  })
  .meta({ id: "SecurityEventsPage" });

const AlertsSchema = z
  .strictObject({ enabled: z.boolean().meta({ description: "true: a sign-in from a browser or app new to the account is emailed." }) })
  .meta({ id: "SignInAlerts" });

const alertsRequest = body({
  enabled: flagField("enabled").meta({ description: "1 (or true) turns the alerts on; 0, false or missing turns them off." }),
}).meta({ id: "SignInAlertsRequest" });

export const ALERT_MESSAGES = {
  events: "Recent activity",
  alerts: "Sign-in alerts",
  alertsOn: "Sign-in alerts are on.",
  alertsOff: "Sign-in alerts are off.",
} as const;

export const securityRoutes = [
  route({
    method: "get",
    path: "/api/account/security-events",
    operationId: "listSecurityEvents",
    tags: ["Account"],
    summary: "The caller's recent security events",
    description: `The account's security events (sign-ins, failed password sign-ins, password, email, two-factor, passkey, card changes, signing out everywhere), newest first, ${SECURITY_EVENTS_PAGE_SIZE} a page. Each has its time, the browser's User-Agent and the network address shortened (IPv4 to /24, IPv6 to /48). Events are kept ${SECURITY_EVENT_RETENTION_DAYS} days.`,
    auth: true,
    query: eventsQuery,
    success: { description: `'${ALERT_MESSAGES.events}'`, data: EventsPageSchema },
    async handler({ ctx, req, auth, query }) {
      const { events: stored, hasMore } = await listSecurityEvents(ctx.db, auth.user.id, query.page);
      // The details the API wrote are written in the request's language (a name a person gave stays).
      const lng = requestLanguage(req);
      const events = stored.map((event) => ({ ...event, detail: detailIn(lng, event.kind, event.detail) }));
      return {
        data: { events, page: query.page, has_more: hasMore, retention_days: SECURITY_EVENT_RETENTION_DAYS as typeof SECURITY_EVENT_RETENTION_DAYS },
        message: ALERT_MESSAGES.events,
      };
    },
  }),

  route({
    method: "get",
    path: "/api/account/sign-in-alerts",
    operationId: "getSignInAlerts",
    tags: ["Account"],
    summary: "Whether new sign-ins are emailed",
    auth: true,
    success: { description: `'${ALERT_MESSAGES.alerts}'`, data: AlertsSchema },
    async handler({ ctx, auth }) {
      return { data: { enabled: await signInAlertsOn(ctx.db, auth.user.id) }, message: ALERT_MESSAGES.alerts };
    },
  }),

  route({
    method: "put",
    path: "/api/account/sign-in-alerts",
    operationId: "setSignInAlerts",
    tags: ["Account"],
    summary: "Turn the new sign-in emails on or off",
    description: "On by default. When on, a sign-in from a browser or app the account has not used before emails 'New sign-in to your account'.",
    auth: true,
    body: alertsRequest,
    success: { description: `'${ALERT_MESSAGES.alertsOn}' or '${ALERT_MESSAGES.alertsOff}'`, data: AlertsSchema },
    async handler({ ctx, auth, body: input }) {
      const enabled = input.enabled === 1;
      await setSignInAlerts(ctx, auth.user.id, enabled);
      return { data: { enabled }, message: enabled ? ALERT_MESSAGES.alertsOn : ALERT_MESSAGES.alertsOff };
    },
  }),
];
