import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { translatorOf } from "~/i18n/i18n.server";
import { requireToken } from "~/utils/auth.server";
import { readFormData } from "~/utils/forms.server";

// 'Download recovery codes': the page that shows the codes once posts them back here and gets them
// as a text file. Nothing is stored: the codes only pass through (the API keeps their hashes).

const RECOVERY_CODE = /^[a-z0-9]{5}-[a-z0-9]{5}$/;
const MAX_CODES = 10;

export async function loader() {
  return redirect("/account/two-factor");
}

export async function action({ request }: ActionFunctionArgs) {
  await requireToken(request);
  const formData = await readFormData(request);
  const codes = formData.getAll("codes").filter((value): value is string => typeof value === "string" && RECOVERY_CODE.test(value));
  // The file is in the page's language, as the page that offered it.
  const t = translatorOf(request);
  if (codes.length === 0 || codes.length > MAX_CODES) {
    return new Response(t("account.twoFactor.file.none"), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const text = [
    t("account.twoFactor.file.title"),
    "",
    t("account.twoFactor.file.text"),
    "",
    ...codes,
    "",
  ].join("\n");
  return new Response(text, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": 'attachment; filename="vpn-recovery-codes.txt"',
      "Cache-Control": "private, no-store",
    },
  });
}
