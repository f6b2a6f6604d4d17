import { INTENT, parse, serializeIntent, type SubmissionResult } from "@conform-to/dom";
import { useActionData, useNavigation } from "@remix-run/react";
import { useEffect, useMemo, useRef } from "react";
import { useFlashFormError } from "~/components/form-alert";

/** The Standard Schema interface every zod 4 schema implements; using it keeps zod out of this module. */
type StandardSchema = {
  "~standard": {
    validate(value: unknown):
      | { value: unknown; issues?: undefined }
      | { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> }
      | Promise<unknown>;
  };
};

/**
 * Browser-side validation with the same zod/mini schema the action uses. It avoids
 * @conform-to/zod, whose coercion pulls the whole of zod into the client bundle; the schemas take
 * strings only, so no coercion is needed and results match the server's (tests/unit checks that).
 */
export function validateForm<Output>(formData: FormData, schema: StandardSchema) {
  return parse<Output, string[]>(formData, {
    resolve(payload) {
      // Conform's server parser treats empty strings as missing; do the same here.
      const value = Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, v === "" ? undefined : v]));
      const result = schema["~standard"].validate(value);
      // Form schemas have no async checks; should one appear, the server's answer decides.
      if (result instanceof Promise) return { value: undefined };
      if (!result.issues) return { value: result.value as Output };
      const error: Record<string, string[]> = {};
      for (const issue of result.issues) {
        const name = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".");
        (error[name] ??= []).push(issue.message);
      }
      return { error };
    },
  });
}

/** Events that show someone is about to use a form: the schema is fetched then, not on every page view. */
const FORM_INTENT_EVENTS = ["focusin", "focusout", "pointerdown", "keydown", "input"] as const;

/**
 * conform's onValidate with the schema loaded on the first sign of intent (focus, pointer, typing)
 * in the form `formId`, so a visitor who only looks at the page never downloads it. Until it has
 * arrived the server's answer decides; a field left while it was on its way is validated once it is
 * (conform counts that field as checked already and would otherwise wait for its next input).
 */
function useLazySchemaValidation<Output>(formId: string, loadSchema: () => Promise<StandardSchema>) {
  const schema = useRef<StandardSchema | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: callers pass a new loadSchema arrow each render; the form's id decides what to load
  useEffect(() => {
    let live = true;
    let blurredWhileLoading: EventTarget | null = null;
    const form = document.getElementById(formId);
    const rememberBlur = (event: Event) => {
      if (!schema.current) blurredWhileLoading = event.target;
    };
    const load = () => {
      for (const type of FORM_INTENT_EVENTS) form?.removeEventListener(type, load);
      void loadSchema().then((loaded) => {
        if (!live) return;
        schema.current = loaded;
        form?.removeEventListener("focusout", rememberBlur);
        const left = blurredWhileLoading;
        if (form instanceof HTMLFormElement && left instanceof HTMLInputElement && left.name && left.form === form && left.isConnected) {
          requestValidation(form, left.name);
        }
      });
    };
    if (!form) {
      load();
    } else {
      form.addEventListener("focusout", rememberBlur);
      for (const type of FORM_INTENT_EVENTS) form.addEventListener(type, load);
    }
    return () => {
      live = false;
      form?.removeEventListener("focusout", rememberBlur);
      for (const type of FORM_INTENT_EVENTS) form?.removeEventListener(type, load);
    };
    // The loader is a static import() per form; set up once per form.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [formId]);
  return ({ formData }: { formData: FormData }) =>
    schema.current ? validateForm<Output>(formData, schema.current) : parse<Output, string[]>(formData, { resolve: () => ({ value: undefined }) });
}

/**
 * Asks conform to validate one field now, the way its own `form.validate({ name })` does: a submit
 * with a validate intent, which conform answers without sending the form.
 */
function requestValidation(form: HTMLFormElement, name: string) {
  const submitter = document.createElement("button");
  submitter.type = "submit";
  submitter.hidden = true;
  submitter.formNoValidate = true;
  submitter.name = INTENT;
  submitter.value = serializeIntent({ type: "validate", payload: { name } });
  submitter.setAttribute("form", form.id);
  document.body.appendChild(submitter);
  try {
    form.requestSubmit(submitter);
  } finally {
    submitter.remove();
  }
}

type FormActionData = { form?: string; result?: unknown; serverError?: string | null } | undefined;

/**
 * conform's useForm options for one of a page's forms: the server's last result when it was this
 * form's (and no newer submission is under way), else an error a redirect carried to this form (next
 * to its field, or the form's own with none; issue 21), and schema validation on blur, loaded on intent.
 */
export function useFormOptions<Fields extends Record<string, unknown>>(id: string, loadSchema: () => Promise<StandardSchema>) {
  const actionData = useActionData<FormActionData>();
  const idle = useNavigation().state === "idle";
  const flash = useFlashFormError(id);
  const onValidate = useLazySchemaValidation<Fields>(id, loadSchema);
  const fromAction = idle && actionData?.form === id ? (actionData.result as SubmissionResult<string[]>) : undefined;
  const flashField = flash ? (flash.field ?? "") : null;
  const flashMessage = flash?.message ?? null;
  // One object per flash: conform reports a new lastResult each time it changes identity.
  const carried = useMemo<SubmissionResult<string[]> | undefined>(
    () => (flashField !== null && flashMessage !== null ? { status: "error", error: { [flashField]: [flashMessage] } } : undefined),
    [flashField, flashMessage],
  );
  const fromRedirect = idle && !actionData ? carried : undefined;
  return {
    id,
    lastResult: fromAction ?? fromRedirect,
    shouldValidate: "onBlur" as const,
    shouldRevalidate: "onInput" as const,
    onValidate,
  };
}

/**
 * What the server answered form `id`: its messages per field and the values it was posted with (kept
 * in the fields), from the post just answered, or the messages a redirect carried (a flash). For a
 * form that the server alone validates (the checkout's coupon, coupon-form.tsx).
 */
export function useServerAnswer(id: string): { errors: Record<string, string[] | null | undefined>; values: Record<string, unknown> } {
  const actionData = useActionData<FormActionData>();
  const idle = useNavigation().state === "idle";
  const flash = useFlashFormError(id);
  if (idle && actionData?.form === id) {
    const result = actionData.result as SubmissionResult<string[]> | undefined;
    return { errors: result?.error ?? {}, values: (result?.initialValue ?? {}) as Record<string, unknown> };
  }
  if (idle && !actionData && flash) return { errors: { [flash.field ?? ""]: [flash.message] }, values: {} };
  return { errors: {}, values: {} };
}

/**
 * The name of the first field the server refused in the post just answered for form `id`, or null. Its
 * input takes `autoFocus`: without JavaScript the page comes back from a failed post at the top, and the
 * browser then focuses that field and scrolls it into view, its message beside it (issue 33). With
 * JavaScript nothing moves (autoFocus acts only when an input appears).
 */
export function useFirstRefusedField(id: string): string | null {
  const actionData = useActionData<FormActionData>();
  const idle = useNavigation().state === "idle";
  if (!idle || actionData?.form !== id) return null;
  const error = (actionData.result as SubmissionResult<string[]> | undefined)?.error;
  if (!error) return null;
  return Object.entries(error).find(([name, messages]) => name !== "" && messages && messages.length > 0)?.[0] ?? null;
}
