import { z } from "zod";
import { route } from "../contract/route";
import { pingDatabase } from "../../platform/db";
import { DomainError } from "../../platform/errors";

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
