// The error every layer throws for an answer the client must see: a status, the message shown to the
// person, and the field it belongs to. The HTTP layer (api/http/app.ts) writes it as the error envelope.

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: { fields?: FieldErrors; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}
