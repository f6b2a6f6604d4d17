import type { Params } from "@remix-run/react";
import type { ApiAnswer } from "~/utils/api-transport.server";

// What the billing history's PDF downloads share (an invoice, a credit note; issue 35): the ids in their
// paths, and passing on the API's PDF as an attachment that no cache keeps.

/** /billing/{document}/{id}/{gateway}: a positive id and a gateway name, else null. */
export function billingDocumentOf(params: Params): { id: number; gateway: string } | null {
  const id = params.id && /^\d{1,15}$/.test(params.id) ? Number(params.id) : null;
  const gateway = params.gateway ?? "";
  return id && /^[a-z]{1,32}$/.test(gateway) ? { id, gateway } : null;
}

/** The API's answer as a download named `fileName`, or null when it is not a PDF (the caller says so). */
export function pdfDownload(answer: ApiAnswer | null, fileName: string): Response | null {
  if (answer?.status !== 200 || !String(answer.headers["content-type"] ?? "").startsWith("application/pdf")) return null;
  return new Response(answer.body as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "private, no-store",
      // No X-Content-Type-Options here: server.ts's security headers send nosniff on every answer, and
      // the Remix adapter appends a route's headers to those, which would send it twice.
    },
  });
}
