import { Form } from "@remix-run/react";

/** A small form that sends the flow back to its first step. */
export function RestartForm({ intent = "restart", label = "Use a different email" }: { intent?: string; label?: string }) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className="button button--link">
        {label}
      </button>
    </Form>
  );
}
