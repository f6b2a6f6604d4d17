import { parse, type SubmissionResult } from "@conform-to/dom";
import { useActionData, useNavigation } from "@remix-run/react";
import { useEffect, useRef } from "react";

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

/**
 * conform's onValidate with the schema loaded after hydration, off the critical path: the page
 * works (server validation) before it arrives, and validates as you type once it has.
 */
export function useLazySchemaValidation<Output>(loadSchema: () => Promise<StandardSchema>) {
  const schema = useRef<StandardSchema | null>(null);
  useEffect(() => {
    let live = true;
    void loadSchema().then((loaded) => {
      if (live) schema.current = loaded;
    });
    return () => {
      live = false;
    };
    // The loader is a static import() per form; run once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return ({ formData }: { formData: FormData }) =>
    schema.current ? validateForm<Output>(formData, schema.current) : parse<Output, string[]>(formData, { resolve: () => ({ value: undefined }) });
}

type FormActionData = { form?: string; result?: unknown; serverError?: string | null } | undefined;

/**
 * conform's useForm options for one of a page's forms: the server's last result when it was this
 * form's (and no newer submission is under way), and lazy schema validation on blur.
 */
export function useFormOptions<Fields extends Record<string, unknown>>(id: string, loadSchema: () => Promise<StandardSchema>) {
  const actionData = useActionData<FormActionData>();
  const idle = useNavigation().state === "idle";
  const onValidate = useLazySchemaValidation<Fields>(loadSchema);
  return {
    id,
    lastResult: idle && actionData?.form === id ? (actionData.result as SubmissionResult<string[]>) : undefined,
    shouldValidate: "onBlur" as const,
    shouldRevalidate: "onInput" as const,
    onValidate,
  };
}
