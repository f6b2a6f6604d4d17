import type { Express, RequestHandler } from "express";
import { sendError } from "./http";

type Method = "get" | "post" | "put" | "patch" | "delete";

/**
 * Registers a route under its full path with its method handlers, then a catch-all that answers
 * other methods with 405 and an Allow header (OPTIONS gets 204 with the same Allow header).
 */
export function defineRoute(
  app: Express,
  path: string,
  handlers: Partial<Record<Method, RequestHandler | RequestHandler[]>>,
): void {
  const route = app.route(path);
  const methods: string[] = [];
  for (const [method, handler] of Object.entries(handlers) as Array<[Method, RequestHandler | RequestHandler[]]>) {
    route[method](...(Array.isArray(handler) ? handler : [handler]));
    methods.push(method.toUpperCase());
    if (method === "get") methods.push("HEAD");
  }
  methods.push("OPTIONS");
  const allow = methods.join(", ");
  route.all((req, res) => {
    res.setHeader("Allow", allow);
    if (req.method === "OPTIONS") {
      res.status(204).end();
      return;
    }
    sendError(res, 405, "This method is not allowed for this address.");
  });
}
