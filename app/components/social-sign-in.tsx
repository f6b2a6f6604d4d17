import { Form, useRouteLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { loader as rootLoader } from "~/root";

/**
 * 'Continue with Google' and 'Continue with Apple', for the providers that exist here (the root
 * loader says which: off outside sandbox mode without credentials). They leave the app for the
 * provider: a plain document submission, not a client-side one. Renders nothing when both are off.
 * `divider` is a catalogue key or a text already translated.
 */
export function SocialSignIn({ oldurl, divider }: { oldurl: string; divider: string }) {
  const { t } = useTranslation("auth");
  const providers = useRouteLoaderData<typeof rootLoader>("root")?.signInProviders ?? [];
  if (providers.length === 0) return null;
  const query = oldurl ? `?oldurl=${encodeURIComponent(oldurl)}` : "";
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: the divider carries a text ("or"), which an <hr> cannot */}
      <div className="divider" role="separator">
        <span>{t(divider)}</span>
      </div>
      <div className="social-buttons">
        {providers.map((provider) => (
          <Form key={provider} method="post" reloadDocument action={`/auth/${provider}${query}`}>
            <button type="submit" className="button button--social">
              {t("auth.social.continueWith", { provider: provider === "google" ? "Google" : "Apple" })}
            </button>
          </Form>
        ))}
      </div>
    </>
  );
}
