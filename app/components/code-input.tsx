import { useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type ComponentType } from "react";
import { useTranslation } from "react-i18next";

const LENGTH = 6;

type DigitBoxesProps = { id: string; name: string; errorId: string; invalid?: true; initial: string; focusOnMount: boolean };

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
  label = "auth.code.label",
}: {
  id: string;
  name: string;
  errorId: string;
  errors?: string[];
  /** A catalogue key (or a text already translated). */
  label?: string;
}) {
  const { t } = useTranslation("auth");
  const single = useRef<HTMLInputElement>(null);
  const typed = useRef("");
  const hadFocus = useRef(false);
  const [boxes, setBoxes] = useState<{ Boxes: ComponentType<DigitBoxesProps> } | null>(null);
  const refusals = useRefusals(name);
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
  // in the page then), not when the boxes' module arrived: typing in between is not lost. So is whether it
  // had focus (the boxes take it over), and it loses its name: the browser blurs a focused input as it
  // is removed, and conform would validate the empty field on that blur ('Please enter the verification
  // code' in a dialog that had just opened). The render and its commit run without a gap.
  if (boxes && single.current) {
    typed.current = single.current.value;
    hadFocus.current = document.activeElement === single.current;
    single.current.name = "";
  }
  const invalid = errors && errors.length > 0 ? true : undefined;
  return (
    <div className="field">
      <label id={`${id}-label`} htmlFor={boxes ? `${id}-1` : id}>
        {t(label)}
      </label>
      {boxes ? (
        // A refused code starts over in empty boxes, focus on the first: typing the right code over the
        // wrong one's digits (each box selected as it gets focus) scrambled it on slow devices.
        <boxes.Boxes
          key={refusals}
          id={id}
          name={name}
          errorId={errorId}
          invalid={invalid}
          initial={refusals === 0 ? typed.current : ""}
          focusOnMount={refusals > 0 || hadFocus.current}
        />
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
        {errors?.[0] ? t(errors[0]) : ""}
      </p>
    </div>
  );
}

/**
 * How many times a post carrying the code `name` came back to the same page still showing it: the code
 * was refused (a code that is accepted moves the page on). Posts of other forms (resend) do not count.
 */
function useRefusals(name: string): number {
  const navigation = useNavigation();
  const [refusals, setRefusals] = useState(0);
  const carriedCode = navigation.state !== "idle" && navigation.formData?.has(name) === true;
  const wasCarrying = useRef(false);
  useEffect(() => {
    if (wasCarrying.current && !carriedCode && navigation.state === "idle") setRefusals((count) => count + 1);
    wasCarrying.current = carriedCode || (wasCarrying.current && navigation.state !== "idle");
  }, [carriedCode, navigation.state]);
  return refusals;
}
