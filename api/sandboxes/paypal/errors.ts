/*
 * PayPal's error answers: {name, message, debug_id, details: [{field, location, issue, description}],
 * links: [{href, rel: "information_link"}]}, with PayPal's names and messages per status. The v1
 * payments API (sale refunds) has its own older shape, see v1Error.
 */

export interface ErrorDetail {
  issue: string;
  description: string;
  field?: string;
  value?: string;
  location?: "body" | "path" | "query" | "header";
}

const NAMES: Record<number, { name: string; message: string }> = {
  400: { name: "INVALID_REQUEST", message: "Request is not well-formed, syntactically incorrect, or violates schema." },
  401: { name: "AUTHENTICATION_FAILURE", message: "Authentication failed due to invalid authentication credentials or a missing Authorization header." },
  403: { name: "NOT_AUTHORIZED", message: "Authorization failed due to insufficient permissions." },
  404: { name: "RESOURCE_NOT_FOUND", message: "The specified resource does not exist." },
  422: {
    name: "UNPROCESSABLE_ENTITY",
    message: "The requested action could not be performed, semantically incorrect, or failed business validation.",
  },
};

export class PayPalApiError extends Error {
  constructor(
    readonly status: number,
    readonly details: readonly ErrorDetail[],
    /** A v1 payments error: {name, message, information_link, debug_id}. */
    readonly v1?: { name: string; message: string },
    /** Links PayPal adds to some errors (INSTRUMENT_DECLINED: `redirect`, back to the approval page). */
    readonly extraLinks: readonly { href: string; rel: string; method: string }[] = [],
  ) {
    super(v1?.message ?? NAMES[status]?.message ?? "Error");
  }

  body(debugId: string, docs: string): Record<string, unknown> {
    if (this.v1) {
      return { name: this.v1.name, message: this.v1.message, information_link: `${docs}#${this.v1.name}`, debug_id: debugId };
    }
    const named = NAMES[this.status] ?? { name: "INTERNAL_SERVER_ERROR", message: "An internal server error has occurred." };
    return {
      name: named.name,
      message: named.message,
      debug_id: debugId,
      details: this.details,
      links: [
        ...this.details.slice(0, 1).map((d) => ({ href: `${docs}#error-${d.issue}`, rel: "information_link", method: "GET" })),
        ...this.extraLinks,
      ],
    };
  }
}

export const notFound = () =>
  new PayPalApiError(404, [
    { issue: "INVALID_RESOURCE_ID", description: "Specified resource ID does not exist. Please check the resource ID and try again." },
  ]);

export const unprocessable = (issue: string, description: string, field?: string) =>
  new PayPalApiError(422, [{ issue, description, ...(field ? { field, location: "body" as const } : {}) }]);

export const invalid = (issue: string, description: string, field?: string, location: ErrorDetail["location"] = "body") =>
  new PayPalApiError(400, [{ issue, description, ...(field ? { field, location } : {}) }]);
