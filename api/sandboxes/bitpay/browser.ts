import express, { type ErrorRequestHandler, type Response, type Router } from "express";
import { ACTIONS, type SandboxAction } from "./invoices";
import { STYLESHEET, STYLESHEET_PATH, invoicePath, renderInvoicePage, renderMessagePage, returnUrl } from "./pages";
import type { SandboxService } from "./service";

/*
 * What the browser reaches on the portal's origin: the invoice page (GET) and its buttons (POST to
 * the same URL, then 303 back to the site: post/redirect/get). Other paths go to next().
 */

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set("Cache-Control", "no-store").type("html").send(html);
}

function notFound(res: Response): void {
  sendPage(res, 404, renderMessagePage("Invoice not found (sandbox)", "There is no such invoice in the crypto sandbox."));
}

const isAction = (value: unknown): value is SandboxAction => typeof value === "string" && (ACTIONS as readonly string[]).includes(value);

export function createBrowserRouter(deps: { service: SandboxService; logger: Pick<Console, "error"> }): Router {
  const { service } = deps;
  const router = express.Router();
  const parseForm = express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 });

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.set("Cache-Control", "public, max-age=300").type("css").send(STYLESHEET);
  });

  router.get("/dev/bitpay/invoice/:id", async (req, res, next) => {
    try {
      const invoice = await service.get(req.params.id);
      if (!invoice) return notFound(res);
      sendPage(res, 200, renderInvoicePage(invoice));
    } catch (error) {
      next(error);
    }
  });

  router.post("/dev/bitpay/invoice/:id", parseForm, async (req, res, next) => {
    try {
      const action: unknown = (req.body as Record<string, unknown> | undefined)?.action;
      if (!isAction(action)) {
        return sendPage(res, 400, renderMessagePage("Unknown action (sandbox)", "Choose one of the invoice page's buttons."));
      }
      // A second post (a double click, the back button) finds the invoice final: it changes nothing
      // and leads where the first one did.
      const invoice = await service.act(req.params.id, action);
      if (!invoice) return notFound(res);
      res.redirect(303, (invoice.status === "new" ? null : returnUrl(invoice)) ?? invoicePath(invoice.id));
    } catch (error) {
      next(error);
    }
  });

  // Only errors raised above reach this: a body that does not parse, or a failure of the sandbox.
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const status = typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) deps.logger.error(`BitPay sandbox: ${req.method} ${req.path} failed:`, error);
    sendPage(
      res,
      status,
      renderMessagePage(
        "Something went wrong (sandbox)",
        status === 500 ? "The crypto sandbox could not handle this request." : "The request could not be read.",
      ),
    );
  };
  router.use(onError);
  return router;
}
