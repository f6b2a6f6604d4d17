import { z } from "zod";
import { route } from "../contract/route";
import { pingDatabase } from "../../platform/db";
import { DomainError } from "../../platform/errors";
import { countryList } from "../../billing/countries";

export const DownloadLinksSchema = z
  .strictObject({ windows: z.string().meta({ format: "uri" }), mac: z.string().meta({ format: "uri" }) })
  .meta({ id: "DownloadLinks" });

export const publicRoutes = [
  route({
    method: "get",
    path: "/api/download-links",
    operationId: "downloadLinks",
    tags: ["Public"],
    summary: "Download links for the desktop apps",
    auth: false,
    success: {
      description: "The links (DOWNLOAD_WINDOWS_URL, DOWNLOAD_MAC_URL)",
      data: DownloadLinksSchema,
    },
    handler: ({ ctx }) => ({ data: { windows: ctx.config.downloads.windows, mac: ctx.config.downloads.mac } }),
  }),

  route({
    method: "get",
    path: "/api/countries",
    operationId: "countries",
    tags: ["Public"],
    summary: "The countries a buyer can choose (the checkout's 'Country')",
    description:
      "The one list of api/billing/countries.ts, as GET /api/account/billing-details answers it, for a visitor's checkout too (issue 35): every ISO 3166-1 alpha-2 code with its English name, sorted by name, and whether it is in the EU.",
    auth: false,
    success: {
      description: "The countries",
      data: z.strictObject({ countries: z.array(z.strictObject({ code: z.string(), name: z.string(), eu: z.boolean() })) }),
    },
    handler: () => ({ data: { countries: countryList() } }),
  }),

  route({
    method: "get",
    path: "/api/health",
    operationId: "health",
    tags: ["Public"],
    summary: "Health check (runs `select 1` on the database)",
    auth: false,
    success: { description: "Healthy", data: z.strictObject({ database: z.literal("ok") }) },
    errors: { 503: "'Database unavailable.'" },
    async handler({ ctx }) {
      if (!(await pingDatabase(ctx.db))) throw new DomainError("database_unavailable", "Database unavailable.");
      return { data: { database: "ok" as const } };
    },
  }),
];
