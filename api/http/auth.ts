import type { RequestHandler, Response } from "express";
import type { ApiContext } from "./context";
import { type AuthState, authenticate } from "../identity/sessions";
import { DomainError } from "../platform/errors";
import { bearerToken } from "../platform/tokens";
import { asyncHandler } from "./envelope";

// Bearer authentication for the routes: identity finds the session a token stands for
// (api/identity/sessions.ts); this is the Express side, the 401 and where the route finds it.

const UNAUTHENTICATED = "Unauthenticated.";

function unauthenticated(): DomainError {
  return new DomainError("unauthenticated", UNAUTHENTICATED, { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });
}

/** Bearer authentication: 401 'Unauthenticated.' for a missing, unknown, revoked or expired token. */
export function requireAuth(ctx: Pick<ApiContext, "db" | "clock">): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const state = await authenticate(ctx, bearerToken(req.headers.authorization));
    if (!state) throw unauthenticated();
    setAuth(res, state);
    next();
  });
}

const AUTH_KEY = "apiAuth";

function setAuth(res: Response, state: AuthState): void {
  res.locals[AUTH_KEY] = state;
}

/** The authenticated user of a request that passed requireAuth. */
export function getAuth(res: Response): AuthState {
  const state = res.locals[AUTH_KEY] as AuthState | undefined;
  if (!state) throw new Error("getAuth() called on a route without requireAuth().");
  return state;
}
