import type { NextFunction, Request, Response } from "express";
import { onlyLanguageCookie } from "../app/i18n/languages";

/**
 * Answers the same for everybody, whoever asks: Remix's route-manifest (lazy route discovery) and the
 * languages' catalogues (/locales/<language>.<hash>.json, app/routes/locales.$file.ts).
 */
const SHARED_ANSWERS = new Set(["/__manifest"]);
const isSharedAnswer = (path: string) => SHARED_ANSWERS.has(path) || path.startsWith("/locales/");

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
  // The `lang` cookie alone (the footer's language) still makes an anonymous visitor (issue 36).
  const anonymous = (!req.headers.cookie || onlyLanguageCookie(req.headers.cookie)) && !req.headers.authorization;
  const shareable =
    /^public\b/i.test(cacheControl) && !res.getHeader("Set-Cookie") && (anonymous || isSharedAnswer(req.path));
  if (!shareable) res.setHeader("Cache-Control", PRIVATE_NO_STORE);
  let vary = String(res.getHeader("Vary") ?? "");
  if (!/(^|,)\s*(cookie|\*)\s*(,|$)/i.test(vary)) vary = vary ? `${vary}, Cookie` : "Cookie";
  // A page's words follow the `lang` cookie, else Accept-Language (app/i18n/languages.ts): a shared
  // cache keeps one copy per language, never a German copy for an English visitor.
  if (!isSharedAnswer(req.path) && !/(^|,)\s*accept-language\s*(,|$)/i.test(vary)) vary = `${vary}, Accept-Language`;
  res.setHeader("Vary", vary);
}
