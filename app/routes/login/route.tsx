import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthPage } from "~/components/auth-page";
import { LoginSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { requireAnonymous } from "~/utils/auth.server";
import { formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession } from "~/utils/session.server";
import { needsSecondFactor, redirectToSecondFactor } from "~/utils/two-factor.server";
import { SignInForm } from "./sign-in-form";
import { SignUp } from "./sign-up";
import { signupAction, signupState } from "./signup.server";
import { pageMeta } from "~/utils/meta";

export const meta: MetaFunction = ({ location }) =>
  new URLSearchParams(location.search).get("tab") === "signup"
    ? pageMeta("Sign Up | VPN Account", "Create your VPN account with your email, Google or Apple.")
    : pageMeta("Sign In | VPN Account", "Sign in to your VPN account to manage your plan, billing and connected devices.");

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  const tab = new URL(request.url).searchParams.get("tab") === "signup" ? "signup" : "signin";
  return { signup: tab === "signup" ? await signupState(request) : null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "signin");
  const oldurlField = formData.get("oldurl");
  const oldurl = typeof oldurlField === "string" && oldurlField ? oldurlField : (new URL(request.url).searchParams.get("oldurl") ?? "");
  if (intent === "signin") return signIn(request, context, formData, oldurl);
  return signupAction(intent, { request, context, formData, oldurl });
}

async function signIn(request: Request, context: ActionFunctionArgs["context"], formData: FormData, oldurl: string) {
  const submission = parseSubmission(formData, LoginSchema);
  if (submission.status !== "success") return formFailure("sign-in", submission);
  const { email, password } = submission.value;
  const result = await createApiClient(request, context).post("/api/user/login", { body: { email: email!.trim(), password: password! } });
  if (!result.ok) return formFailure("sign-in", submission, result.message || "Login failed", result.status);
  if (needsSecondFactor(result.data)) return redirectToSecondFactor(request, result.data.challenge, { oldurl });
  return redirect(safeRedirect(oldurl), { headers: { "Set-Cookie": await commitTokenSession(request, result.data.token) } });
}

export default function LoginPage() {
  const { signup } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const tab = signup ? "signup" : "signin";
  const oldurl = searchParams.get("oldurl") ?? "";
  const tabHref = (name: "signin" | "signup") => {
    const params = new URLSearchParams();
    if (name === "signup") params.set("tab", "signup");
    if (oldurl) params.set("oldurl", oldurl);
    const query = params.toString();
    return query ? `/login?${query}` : "/login";
  };

  return (
    <AuthPage title={tab === "signin" ? "Welcome back" : "Create your account"}>
      <div role="tablist" aria-label="Sign in or sign up" className="tabs">
          <Link role="tab" aria-selected={tab === "signin"} to={tabHref("signin")} className="tab" replace>
            Sign In
          </Link>
          <Link role="tab" aria-selected={tab === "signup"} to={tabHref("signup")} className="tab" replace>
            Sign Up
          </Link>
        </div>
      <section role="tabpanel" aria-label={tab === "signin" ? "Sign In" : "Sign Up"}>
        {signup ? <SignUp state={signup} /> : <SignInForm oldurl={oldurl} />}
      </section>
    </AuthPage>
  );
}
