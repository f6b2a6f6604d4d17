import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";

// The bank's 3-D Secure challenge, with JavaScript. Live: Stripe.js's handleNextAction shows it. The
// sandbox: its challenge page (Stripe.js's stand-in, use_stripe_sdk.stripe_js) in a modal <dialog>, an
// iframe of this origin; the challenge's answer is a second page in the frame ('Authentication
// complete' or 'failed'), and then the dialog closes. The portal's own pages refuse to be framed
// (frame-ancestors 'none'), so no return_url is used here. Either way `onDone` then finishes the
// attempt through the API, which reads the outcome from the gateway. Escape or 'Cancel' abandons:
// `onDone` too, and the API finishes the attempt as failed, charging nothing.

export type Challenge = {
  /** The intent's client secret (live: Stripe.js confirms it). */
  clientSecret: string;
  /** The sandbox's challenge page; null live. */
  url: string | null;
};

export function AuthenticationChallenge({
  challenge,
  gateway,
  onDone,
}: {
  challenge: Challenge;
  gateway: { mode: "live" | "sandbox"; publishable_key: string };
  onDone: () => void;
}) {
  const done = useRef(false);
  const finish = useRef(onDone);
  finish.current = onDone;
  const once = () => {
    if (done.current) return;
    done.current = true;
    finish.current();
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: one challenge (the component is keyed by it), run once
  useEffect(() => {
    if (gateway.mode !== "live" || challenge.url) return;
    let live = true;
    // Imported here, not at the top: @stripe/stripe-js adds Stripe's script to the page when it is imported, and
    // only a live gateway may load it (the sandbox's pages would break their CSP and fetch a third party).
    void import("@stripe/stripe-js").then(async ({ loadStripe }) => {
      const stripe = await loadStripe(gateway.publishable_key);
      if (stripe && live) await stripe.handleNextAction({ clientSecret: challenge.clientSecret });
      if (live) once();
    });
    return () => {
      live = false;
    };
  }, [challenge.clientSecret]);

  if (!challenge.url) return null;
  return <ChallengeDialog url={challenge.url} onDone={once} />;
}

function ChallengeDialog({ url, onDone }: { url: string; onDone: () => void }) {
  const { t } = useTranslation("payments");
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    heading.current?.focus();
    return () => element.close();
  }, []);

  // The first load is the challenge; the next one is the page after the answer.
  const loads = useRef(0);
  function onLoad() {
    loads.current += 1;
    if (loads.current < 2) return;
    dialog.current?.close();
    onDone();
  }

  return (
    <dialog
      ref={dialog}
      className="dialog authentication-dialog"
      aria-labelledby="authentication-title"
      onCancel={(event) => {
        event.preventDefault();
        dialog.current?.close();
        onDone();
      }}
    >
      <h2 id="authentication-title" tabIndex={-1} ref={heading}>
        {t("payments.challenge.title")}
      </h2>
      <iframe src={url} title={t("payments.challenge.frameTitle")} onLoad={onLoad} className="authentication-dialog__frame" />
      <button
        type="button"
        className="button button--link"
        onClick={() => {
          dialog.current?.close();
          onDone();
        }}
      >
        {t("payments.challenge.cancel")}
      </button>
    </dialog>
  );
}
