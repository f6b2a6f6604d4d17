import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";

/** A small form that sends the flow back to its first step. `label` is a catalogue key or a text already translated. */
export function RestartForm({ intent = "restart", label = "auth.code.differentEmail" }: { intent?: string; label?: string }) {
  const { t } = useTranslation("auth");
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className="button button--link">
        {t(label)}
      </button>
    </Form>
  );
}
