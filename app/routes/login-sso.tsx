import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { AuthPage } from "~/components/auth-page";
import { Spinner } from "~/components/spinner";
import { createApiClient } from "~/utils/api.server";
import { readFormData } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession, getSessionToken } from "~/utils/session.server";

// Single sign-on by token (identity §2). The exchange is a POST — never a side effect of the GET,
// because mail scanners and link previews follow links. JavaScript submits it at once; without it,
// the visitor presses Continue.

export const meta: MetaFunction = () => [{ title: "Signing you in | VPN Account" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const redirectTo = url.searchParams.get("redirect") ?? "";
  if (await getSessionToken(request)) throw redirect(safeRedirect(redirectTo));
  return { token: url.searchParams.get("token") ?? "", redirectTo };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const token = String(formData.get("token") ?? "");
  const redirectTo = safeRedirect(formData.get("redirect"));
  if (await getSessionToken(request)) return redirect(redirectTo);
  if (!token) return data({ serverError: "Looks like the link is broken, plesae try again!" }, { status: 400 });
  const result = await createApiClient(request, context).post("/api/auth/sso-login-with-token", { body: { access_token: token } });
  if (!result.ok) return data({ serverError: result.message || "SSO login failed" }, { status: result.status < 500 ? result.status : 503 });
  return redirect(redirectTo, { headers: { "Set-Cookie": await commitTokenSession(request, result.data.token) } });
}

export default function SsoLoginPage() {
  const { token, redirectTo } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const form = useRef<HTMLFormElement>(null);
  const submitted = useRef(false);

  useEffect(() => {
    // The token is single use: exchange it once, even when React runs effects twice.
    if (!token || submitted.current) return;
    submitted.current = true;
    form.current?.requestSubmit();
  }, [token]);

  return (
    <AuthPage className="auth-card centered">
        {!token ? (
          <>
            <h1 className="auth-title">Looks like the link is broken, plesae try again!</h1>
            <Link to="/login" className="button">
              Go to sign in
            </Link>
          </>
        ) : actionData?.serverError ? (
          <>
            <h1 className="auth-title">We couldn&apos;t sign you in</h1>
            <p className="muted">The link may have been used already or expired. Please sign in.</p>
            <Link to="/login" className="button">
              Go to sign in
            </Link>
          </>
        ) : (
          <>
            <h1 className="auth-title">Please wait, while we redirect...</h1>
            <Spinner />
            <Form method="post" ref={form}>
              <input type="hidden" name="token" value={token} />
              <input type="hidden" name="redirect" value={redirectTo} />
              <noscript>
                <button type="submit" className="button button--primary button--block">
                  Continue
                </button>
              </noscript>
            </Form>
          </>
        )}
    </AuthPage>
  );
}
