import type { Express } from "express";
import type { ApiContext } from "../context";
import { sendOk } from "../lib/http";
import { defineRoute } from "../lib/routing";
import { requireAuth } from "../lib/sessions";

export type LinkType = "GOOGLE" | "APPLE";

export interface LinkedAccount {
  id: number;
  link_type: LinkType;
}

export function registerAccountRoutes(app: Express, ctx: ApiContext): void {
  // Google/Apple linking arrives in a later issue (with its table); until then nothing is linked.
  defineRoute(app, "/api/account/link-list", {
    post: [
      requireAuth(ctx),
      (_req, res) => {
        const linked: LinkedAccount[] = [];
        sendOk(res, { linked });
      },
    ],
  });
}
