import type { Express } from "express";
import type { ApiContext } from "../context";
import { pingDatabase } from "../db";
import { asyncHandler, sendError, sendOk } from "../lib/http";
import { defineRoute } from "../lib/routing";

export function registerPublicRoutes(app: Express, ctx: ApiContext): void {
  defineRoute(app, "/api/download-links", {
    get: (_req, res) => {
      sendOk(res, { windows: ctx.config.downloads.windows, mac: ctx.config.downloads.mac });
    },
  });

  defineRoute(app, "/api/health", {
    get: asyncHandler(async (_req, res) => {
      if (await pingDatabase(ctx.db)) sendOk(res, { database: "ok" });
      else sendError(res, 503, "Database unavailable.");
    }),
  });
}
