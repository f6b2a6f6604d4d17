import type { NextFunction, Request, Response } from "express";

/** Remix's route-manifest answers (lazy route discovery): the route table, the same for everybody. */
const SHARED_ANSWERS = new Set(["/__manifest"]);

export const PRIVATE_NO_STORE = "private, no-store";

/**
 * The portal's one caching rule, for every answer of the Remix app (documents, `.data` requests,
 * resource routes, redirects, errors), applied as its headers go out (docs/decisions/018):
 * an answer stays cacheable only when a route marked it `public`, the request carried no cookie or
 * Authorization header, and the answer sets no cookie. Everything else is `private, no-store`, and
 * every answer varies on Cookie, so that a shared cache never gives one visitor's answer to another.
 */
export function cachePolicy(req: Request, res: Response, next: NextFunction) {
  const writeHead = res.writeHead;
  // Node calls writeHead itself (implicitly) before the first byte, whichever way the answer is sent.
  res.writeHead = function (this: Response, ...args: Parameters<Response["writeHead"]>) {
    applyCachePolicy(req, res);
    return writeHead.apply(this, args);
  } as Response["writeHead"];
  next();
}

function applyCachePolicy(req: Request, res: Response) {
  const cacheControl = String(res.getHeader("Cache-Control") ?? "");
  const anonymous = !req.headers.cookie && !req.headers.authorization;
  const shareable =
    /^public\b/i.test(cacheControl) && !res.getHeader("Set-Cookie") && (anonymous || SHARED_ANSWERS.has(req.path));
  if (!shareable) res.setHeader("Cache-Control", PRIVATE_NO_STORE);
  const vary = String(res.getHeader("Vary") ?? "");
  if (!/(^|,)\s*(cookie|\*)\s*(,|$)/i.test(vary)) res.setHeader("Vary", vary ? `${vary}, Cookie` : "Cookie");
}
