/*
 * The part of oidc-provider@9's API that the identity sandbox uses. The package ships no types and
 * @types/oidc-provider is not installed; this ambient declaration keeps `tsc --noEmit` strict without
 * touching package.json. Shapes follow oidc-provider 9.x (lib/provider.js, lib/helpers/defaults.js).
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type UnknownObject = Record<string, unknown>;

  export interface OIDCClient {
    clientId: string;
    [key: string]: unknown;
  }

  export interface OIDCSession {
    accountId?: string;
    [key: string]: unknown;
  }

  export interface OIDCParams {
    scope?: string;
    claims?: string;
    response_mode?: string;
    redirect_uri?: string;
    [key: string]: unknown;
  }

  export interface OIDCContext {
    route: string;
    issuer: string;
    client?: OIDCClient;
    session?: OIDCSession;
    params?: OIDCParams;
    responseMode?: string;
    result?: InteractionResults;
    account?: Account;
  }

  /** A Koa context with the provider's `oidc` property (only the members the sandbox reads or sets). */
  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
    status: number;
    type: string;
    body: unknown;
    path: string;
    method: string;
    set(field: string, value: string): void;
    get(field: string): string;
  }

  export type FindAccount = (
    ctx: KoaContextWithOIDC,
    sub: string,
    token?: unknown,
  ) => Account | undefined | Promise<Account | undefined>;

  export interface Account {
    accountId: string;
    claims(
      use: string,
      scope: string,
      claims: Record<string, null | UnknownObject>,
      rejected: string[],
    ): UnknownObject | Promise<UnknownObject>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris?: string[];
    response_types?: string[];
    grant_types?: string[];
    token_endpoint_auth_method?: string;
    application_type?: "web" | "native";
    client_name?: string;
    [key: string]: unknown;
  }

  export interface ErrorOut {
    error: string;
    error_description?: string;
    state?: string;
    [key: string]: unknown;
  }

  export interface InteractionResults {
    login?: { accountId: string; remember?: boolean; ts?: number; amr?: string[]; acr?: string };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export interface PromptDetail {
    name: string;
    reasons: string[];
    details: UnknownObject;
  }

  export interface Interaction {
    uid: string;
    jti: string;
    returnTo: string;
    prompt: PromptDetail;
    params: OIDCParams & { client_id?: string };
    session?: { accountId?: string; uid?: string; cookie?: string };
    grantId?: string;
    lastSubmission?: InteractionResults;
    exp: number;
    /** Saves changes with the remaining lifetime. */
    persist(): Promise<unknown>;
  }

  export interface Session {
    uid: string;
    accountId?: string;
    destroy(): Promise<void>;
  }

  export class Check {
    constructor(
      reason: string,
      description: string,
      check: (ctx: KoaContextWithOIDC) => boolean | Promise<boolean>,
    );
    constructor(
      reason: string,
      description: string,
      error: string,
      check: (ctx: KoaContextWithOIDC) => boolean | Promise<boolean>,
    );
    static REQUEST_PROMPT: true;
    static NO_NEED_TO_PROMPT: false;
  }

  export interface Prompt {
    name: string;
    requestable: boolean;
    checks: Check[] & { add(check: Check, index?: number): void; get(reason: string): Check | undefined };
  }

  export type Policy = Prompt[] & { get(name: string): Prompt | undefined };

  export const interactionPolicy: {
    base(): Policy;
    Check: typeof Check;
  };

  export interface Configuration {
    clients?: ClientMetadata[];
    jwks?: { keys: UnknownObject[] };
    cookies?: {
      keys?: string[];
      names?: { session?: string; interaction?: string; resume?: string };
      long?: UnknownObject;
      short?: UnknownObject;
    };
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    allowOmittingSingleRegisteredRedirectUri?: boolean;
    features?: Record<string, UnknownObject>;
    interactions?: {
      policy?: Policy;
      url?: (ctx: KoaContextWithOIDC, interaction: Interaction) => string | Promise<string>;
    };
    findAccount?: FindAccount;
    renderError?: (ctx: KoaContextWithOIDC, out: ErrorOut, error: Error) => void | Promise<void>;
    responseTypes?: string[];
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: OIDCClient) => boolean };
    clientBasedCORS?: (ctx: KoaContextWithOIDC, origin: string, client: OIDCClient) => boolean;
    ttl?: Record<string, number | ((...args: unknown[]) => number)>;
    [key: string]: unknown;
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    jti: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(ttl?: number): Promise<string>;
    static find(id: string): Promise<Grant | undefined>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    /** Koa's app.proxy: trust X-Forwarded-Host / X-Forwarded-Proto. */
    proxy: boolean;
    Grant: typeof Grant;
    Session: { findByUid(uid: string): Promise<Session | undefined> };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    urlFor(name: string, options?: UnknownObject): string;
    on(event: "authorization.success", listener: (ctx: KoaContextWithOIDC, out: UnknownObject) => void): this;
    on(event: "server_error", listener: (ctx: KoaContextWithOIDC, error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default Provider;
}
