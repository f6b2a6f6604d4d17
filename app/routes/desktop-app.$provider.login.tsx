import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AuthPage } from "~/components/auth-page";
import { FormAlert, useFlashFormError } from "~/components/form-alert";
import { startProviderFlow } from "~/utils/identity/authenticator.server";
import { deviceFieldsFrom, PROVIDER_LABELS, providerParam } from "~/utils/identity/routes.server";
import { pageMeta } from "~/utils/meta";

// The desktop app opens this page in the browser: it starts the provider's sign-in at once, carrying
// the device fields of its query (device_os, device_brand, device_model, device_os_version). After a
// failed attempt (?failed=1) it shows a way to try again instead of starting over in a loop.

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.desktopLogin.title", "auth.meta.desktopLogin.description");

export async function loader({ request, params }: LoaderFunctionArgs) {
  const provider = providerParam(params.provider);
  const url = new URL(request.url);
  if (!url.searchParams.has("failed")) {
    try {
      return await startProviderFlow(provider, request, { kind: "desktop", device: deviceFieldsFrom(url) });
    } catch (error) {
      console.error(`Starting ${provider} desktop sign-in failed:`, error instanceof Error ? error.message : error);
    }
  }
  const retry = new URL(url);
  retry.searchParams.delete("failed");
  return { label: PROVIDER_LABELS[provider], retryHref: `${retry.pathname}${retry.search}` };
}

export default function DesktopLoginPage() {
  const { t } = useTranslation("auth");
  const { label, retryHref } = useLoaderData<typeof loader>();
  // Why the sign-in failed, when the provider's answer said (auth.$provider.callback.tsx).
  const flash = useFlashFormError("desktop-login");
  return (
    <AuthPage title={t("auth.desktop.title")}>
      <FormAlert errors={flash ? [flash.message] : null} />
      <p className="muted">{t("auth.desktop.failedWith", { provider: label })}</p>
      <a href={retryHref} className="button button--primary button--block">
        {t("auth.desktop.tryAgain")}
      </a>
    </AuthPage>
  );
}
