import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { Field } from "~/components/field";
import { Logo } from "~/components/logo";
import { Spinner } from "~/components/spinner";
import { Toasts } from "~/components/toasts";
import { createApiClient } from "~/utils/api.server";
import { requireAnonymous } from "~/utils/auth.server";
import { LoginSchema } from "~/schemas/index.server";
import type { LoginFields } from "~/schemas/login";
import { useLazySchemaValidation } from "~/utils/client-validation";
import { parseForm } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession } from "~/utils/session.server";

export const meta: MetaFunction = () => [{ title: "Sign In | VPN Account" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const { submission } = await parseForm(request, LoginSchema);
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }), serverError: null }, { status: 400 });
  }
  const { email, password, oldurl } = submission.value;
  const result = await createApiClient(request, context).login({ email: email!.trim(), password: password! });
  if (!result.ok) {
    return data(
      { result: submission.reply({ hideFields: ["password"] }), serverError: result.message || "Login failed" },
      { status: result.status >= 400 && result.status < 500 ? result.status : 503 },
    );
  }
  const target = safeRedirect(oldurl ?? new URL(request.url).searchParams.get("oldurl"));
  return redirect(target, { headers: { "Set-Cookie": await commitTokenSession(request, result.data.token) } });
}

export default function LoginPage() {
  const [searchParams] = useSearchParams();
  const tab = searchParams.get("tab") === "signup" ? "signup" : "signin";
  const oldurl = searchParams.get("oldurl") ?? "";
  const tabHref = (name: "signin" | "signup") => {
    const params = new URLSearchParams();
    if (name === "signup") params.set("tab", "signup");
    if (oldurl) params.set("oldurl", oldurl);
    const query = params.toString();
    return query ? `/login?${query}` : "/login";
  };

  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">{tab === "signin" ? "Welcome back" : "Create your account"}</h1>
        <div role="tablist" aria-label="Sign in or sign up" className="tabs">
          <Link role="tab" aria-selected={tab === "signin"} to={tabHref("signin")} className="tab" replace>
            Sign In
          </Link>
          <Link role="tab" aria-selected={tab === "signup"} to={tabHref("signup")} className="tab" replace>
            Sign Up
          </Link>
        </div>
        <section role="tabpanel" aria-label={tab === "signin" ? "Sign In" : "Sign Up"}>
          {tab === "signin" ? <SignInForm oldurl={oldurl} /> : <SignUpPending />}
        </section>
      </main>
    </div>
  );
}

function SignInForm({ oldurl }: { oldurl: string }) {
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && navigation.formAction?.startsWith("/login") === true;
  const onValidate = useLazySchemaValidation<LoginFields>(() => import("~/schemas/login").then((module) => module.LoginSchema));
  const [form, fields] = useForm<LoginFields>({
    id: "sign-in",
    lastResult: navigation.state === "idle" ? actionData?.result : null,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate,
  });

  return (
    <>
      <Toasts toasts={actionData?.serverError && navigation.state === "idle" ? [{ type: "error", message: actionData.serverError }] : []} />
      <Form method="post" {...getFormProps(form)} noValidate aria-busy={pending}>
        <input type="hidden" name="oldurl" value={oldurl} />
        <p className="form-error" id={form.errorId} role={form.errors ? "alert" : undefined}>
          {form.errors?.[0] ?? ""}
        </p>
        <Field label={<label htmlFor={fields.email.id}>Email</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
          <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus />
        </Field>
        <Field
          label={<label htmlFor={fields.password.id}>Password</label>}
          errorId={fields.password.errorId}
          errors={fields.password.errors}
        >
          <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
        </Field>
        <div className="auth-links">
          <Link to="/forget-password">Forgot your password?</Link>
          <Link to="/get-code">Get Sign In Code</Link>
        </div>
        <button type="submit" className="button button--primary button--block" disabled={pending}>
          {pending ? <Spinner /> : null}
          Continue
        </button>
      </Form>
      <div className="divider" role="separator">
        <span>or</span>
      </div>
      <div className="social-buttons">
        <Form method="post" action={`/auth/google${oldurl ? `?oldurl=${encodeURIComponent(oldurl)}` : ""}`}>
          <button type="submit" className="button button--social">
            Continue with Google
          </button>
        </Form>
        <Form method="post" action={`/auth/apple${oldurl ? `?oldurl=${encodeURIComponent(oldurl)}` : ""}`}>
          <button type="submit" className="button button--social">
            Continue with Apple
          </button>
        </Form>
      </div>
    </>
  );
}

function SignUpPending() {
  return (
    <div className="placeholder">
      <p>Sign-up with an emailed code is on its way. Until then, sign in with an existing account.</p>
    </div>
  );
}
