import { useEffect, useRef, useState, type ComponentType } from "react";

const LENGTH = 6;

type DigitBoxesProps = { id: string; name: string; errorId: string; invalid?: true; initial: string };

/**
 * Code entry (DESIGN §2): one input labelled 'Verification code' in the server HTML; once React runs,
 * six boxes 'Digit 1' … 'Digit 6' with auto-advance and paste of a whole code, still submitting the
 * same field through a hidden input. The first box is named by both the visible label and 'Digit 1',
 * and anything typed before the boxes arrived is carried over into them. The boxes are loaded after
 * hydration, off every page's critical path: until then the single input works as it does without JS.
 */
export function CodeInput({
  id,
  name,
  errorId,
  errors,
  label = "Verification code",
}: {
  id: string;
  name: string;
  errorId: string;
  errors?: string[];
  label?: string;
}) {
  const single = useRef<HTMLInputElement>(null);
  const typed = useRef("");
  const [boxes, setBoxes] = useState<{ Boxes: ComponentType<DigitBoxesProps> } | null>(null);
  useEffect(() => {
    let live = true;
    void import("./digit-boxes").then(({ DigitBoxes }) => {
      if (live) setBoxes({ Boxes: DigitBoxes });
    });
    return () => {
      live = false;
    };
  }, []);
  // What was typed into the single input is read in the render that replaces it (the input is still
  // in the page then), not when the boxes' module arrived: typing in between is not lost.
  if (boxes && single.current) typed.current = single.current.value;
  const invalid = errors && errors.length > 0 ? true : undefined;
  return (
    <div className="field">
      <label id={`${id}-label`} htmlFor={boxes ? `${id}-1` : id}>
        {label}
      </label>
      {boxes ? (
        <boxes.Boxes id={id} name={name} errorId={errorId} invalid={invalid} initial={typed.current} />
      ) : (
        <input
          ref={single}
          id={id}
          name={name}
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={LENGTH}
          className="code-single"
          aria-invalid={invalid}
          aria-describedby={errorId}
        />
      )}
      <p className="field-error" id={errorId}>
        {errors?.[0] ?? ""}
      </p>
    </div>
  );
}
