import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Field } from "~/components/field";
import { StaticPage } from "~/components/static-page";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import type { SupportMessageFields } from "~/schemas/support";
import { useFirstRefusedField, useFormOptions } from "~/utils/client-validation";
import type { FormFailure } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { CONTACT_FORM_ID, PRIVATE_CACHE, PUBLIC_CACHE, SENT_MESSAGE, SENT_WITHOUT_COPY } from "./contact";
import { loadHelp, sendHelpMessage } from "./help.server";

// /help (issue 21): how to get the apps running, the renewal and refund rules in plain words, and a
// contact form that works without JavaScript. Public, signed in or out; signed in, the form has the
// account's email, so the page is then private (never kept by a shared cache).

export const meta: MetaFunction = () =>
  pageMeta("Help | VPN Account", "Get the VPN apps running, the renewal and refund rules, and how to write to support.");

export const headers: HeadersFunction = ({ loaderHeaders, actionHeaders }) => {
  // Public only as the loader said (anonymous), and never when this answer sets a cookie or follows a post.
  const shareable =
    loaderHeaders.get("Cache-Control") === PUBLIC_CACHE && !loaderHeaders.has("Set-Cookie") && !actionHeaders.has("Cache-Control");
  return { "Cache-Control": shareable ? PUBLIC_CACHE : PRIVATE_CACHE, Vary: "Cookie" };
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  return loadHelp(request, context);
}

export async function action({ request, context }: ActionFunctionArgs) {
  return sendHelpMessage(request, context);
}

export default function HelpPage() {
  const { signedIn, downloads } = useLoaderData<typeof loader>();
  return (
    <StaticPage title="Help">
      <nav aria-label="On this page">
        <ul>
          <li>
            <a href="#apps">Get the apps running</a>
          </li>
          <li>
            <a href="#renewals-and-refunds">Renewals and refunds</a>
          </li>
          <li>
            <a href="#contact">Contact us</a>
          </li>
        </ul>
      </nav>

      <section aria-labelledby="apps">
        <h2 id="apps">Get the apps running</h2>
        <ol>
          <li>
            <strong>Get a plan.</strong> Choose one on the <Link to="/pricing">plans page</Link>; you create your account at
            the checkout. {signedIn ? null : <Link to="/login">Already have an account? Sign in.</Link>}
          </li>
          <li>
            <strong>Download the app</strong> for each of your devices (one plan covers them all):
            <ul>
              {downloads.map((item) => (
                <li key={item.name}>{item.href ? <a href={item.href}>{item.name}</a> : `${item.name} (the link is unavailable right now)`}</li>
              ))}
            </ul>
          </li>
          <li>
            <strong>Sign in to the app</strong> with your account's email and password. Signed up with Google or Apple? Press
            'Continue with Google' or 'Continue with Apple' in the app: it opens this site in your browser, you sign in there,
            and the browser hands you back to the app, signed in. No password, or forgot it? <Link to="/get-code">Get a sign-in code</Link>{" "}
            by email or <Link to="/forget-password">reset your password</Link>.
          </li>
          <li>
            <strong>Connect</strong> in the app. Every device you sign in to is listed under Connected devices in your
            account, where you can sign any of them out.
          </li>
        </ol>
      </section>

      <section aria-labelledby="renewals-and-refunds">
        <h2 id="renewals-and-refunds">Renewals and refunds</h2>
        <ul>
          <li>
            <strong>Plans renew by themselves.</strong> The 1-, 3- and 6-month, 1-year and 2-year plans paid by card, Apple Pay
            or Google Pay renew automatically at the end of each billing cycle, for the same period.
          </li>
          <li>
            <strong>To stop a renewal</strong>, switch auto-renewal off in Billing at least 24 hours before the end of the
            billing cycle. You keep the plan until the end of the time you paid for.
          </li>
          <li>
            <strong>The 5-year plan</strong> is a one-time payment: it never renews.
          </li>
          <li>
            <strong>Crypto plans do not renew by themselves.</strong> We email you a renewal invoice 3 days before the plan
            ends. A crypto payment takes 1 to 3 hours to confirm; your plan starts then.
          </li>
          <li>
            <strong>30-day money-back guarantee.</strong> The payment for your first plan can be refunded in full within 30
            days: 'Request refund' in your Billing history. The plan ends when it is refunded. It is once per customer.
          </li>
          <li>
            <strong>Crypto paid short?</strong> When less than the invoice's amount arrives, your plan does not start. Your
            Billing history says what was paid and what is missing: pay the rest on the BitPay invoice while it is still
            open, or <a href="/help?topic=refund#contact">ask us for the money back</a>.
          </li>
          <li>
            <strong>A renewal payment failed?</strong> Your plan stays on while we try the card again; pay it from Billing
            with another card at any time.
          </li>
        </ul>
        <p>
          The full rules are in the <Link to="/terms">Terms of Service</Link>.
        </p>
      </section>

      <ContactSection />
    </StaticPage>
  );
}

function ContactSection() {
  const { formOn, sent, prefill } = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const serverError = idle && actionData?.form === CONTACT_FORM_ID ? actionData.serverError : null;
  const [form, fields] = useForm<SupportMessageFields>({
    ...useFormOptions<SupportMessageFields>(CONTACT_FORM_ID, () => import("~/schemas/support").then((module) => module.SupportMessageSchema)),
    defaultValue: { email: prefill.email, message: prefill.message, topic: prefill.topic },
  });
  const refused = useFirstRefusedField(CONTACT_FORM_ID);

  return (
    <section aria-labelledby="contact">
      <h2 id="contact">Contact us</h2>
      {!formOn ? (
        <p className="notice">The contact form is unavailable.</p>
      ) : sent ? (
        <>
          <p className="notice" role="status">
            {sent === "copied" ? SENT_MESSAGE : SENT_WITHOUT_COPY}
          </p>
          <p>
            <Link to="/help#contact">Send another message</Link>
          </p>
        </>
      ) : (
        <>
          <Toasts toasts={serverError ? [{ type: "error", message: serverError }] : []} />
          <p>Write to us about anything: the apps, your plan, a payment or a refund. We answer by email.</p>
          <Form method="post" {...getFormProps(form)} noValidate className="help-contact">
            <p className="form-error" id={form.errorId} role="alert">
              {serverError ?? form.errors?.[0] ?? ""}
            </p>
            <input type="hidden" name="intent" value="send-message" />
            <input type="hidden" name="topic" value={prefill.topic} />
            <Field label={<label htmlFor={fields.email.id}>Email</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
              <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus={refused === fields.email.name} />
            </Field>
            <Field label={<label htmlFor={fields.message.id}>Message</label>} errorId={fields.message.errorId} errors={fields.message.errors}>
              <textarea {...getTextareaProps(fields.message)} rows={8} maxLength={5000} autoFocus={refused === fields.message.name} />
            </Field>
            <div className="form-actions">
              <SubmitButton intent="send-message" className="button button--primary">
                Send message
              </SubmitButton>
            </div>
          </Form>
        </>
      )}
    </section>
  );
}
