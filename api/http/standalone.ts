import express from "express";
import type { Api } from "./app";
import { sendError } from "./envelope";

/**
 * The API on its own (`npm run api`, api/server.ts): the API's app at the root, and outside /api
 * nothing, answered in the API's JSON shape rather than Express's HTML.
 */
export function standaloneApp(api: Pick<Api, "app">): express.Express {
  const root = express();
  root.disable("x-powered-by");
  root.use(api.app);
  root.use((_req, res) => sendError(res, "not_found", "Not found."));
  return root;
}
