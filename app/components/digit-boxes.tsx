import { useEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";

const LENGTH = 6;

/** The six code boxes that replace the single code input once JavaScript runs (see code-input.tsx). */
export function DigitBoxes({
  id,
  name,
  errorId,
  invalid,
  initial,
  focusOnMount,
}: {
  id: string;
  name: string;
  errorId: string;
  invalid?: true;
  initial: string;
  /** Take focus when they appear, in the first empty box (the single input had it, or a code was refused). */
  focusOnMount: boolean;
}) {
  const { t } = useTranslation("auth");
  const [digits, setDigits] = useState<string[]>(() =>
    Array.from({ length: LENGTH }, (_, i) => initial.replace(/\D/g, "")[i] ?? ""),
  );
  const boxes = useRef<Array<HTMLInputElement | null>>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the boxes appear
  useEffect(() => {
    if (!focusOnMount) return;
    const firstEmpty = digits.indexOf("");
    boxes.current[firstEmpty === -1 ? LENGTH - 1 : firstEmpty]?.focus();
  }, []);

  const fillFrom = (start: number, text: string) => {
    const incoming = text.replace(/\D/g, "").slice(0, LENGTH - start).split("");
    if (incoming.length === 0) return;
    setDigits((current) => {
      const next = [...current];
      incoming.forEach((digit, offset) => {
        next[start + offset] = digit;
      });
      return next;
    });
    boxes.current[Math.min(start + incoming.length, LENGTH - 1)]?.focus();
  };

  const onChange = (index: number, value: string) => {
    const typed = value.replace(/\D/g, "");
    if (typed === "") {
      setDigits((current) => current.map((digit, i) => (i === index ? "" : digit)));
      return;
    }
    const previous = digits[index];
    // Typing over a filled box gives two characters: keep the new one. Anything longer is a whole code.
    if (typed.length === 2 && previous && typed.includes(previous)) {
      fillFrom(index, typed[0] === previous ? typed.slice(1) : typed.slice(0, 1));
      return;
    }
    fillFrom(index, typed);
  };

  const onKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Backspace" && !digits[index] && index > 0) {
      event.preventDefault();
      setDigits((current) => current.map((digit, i) => (i === index - 1 ? "" : digit)));
      boxes.current[index - 1]?.focus();
    } else if (event.key === "ArrowLeft" && index > 0) boxes.current[index - 1]?.focus();
    else if (event.key === "ArrowRight" && index < LENGTH - 1) boxes.current[index + 1]?.focus();
  };

  const onPaste = (index: number, event: ClipboardEvent<HTMLInputElement>) => {
    event.preventDefault();
    fillFrom(index, event.clipboardData.getData("text"));
  };

  return (
    <div className="code-boxes">
      {digits.map((digit, index) => (
        <input
          // biome-ignore lint/suspicious/noArrayIndexKey: a fixed row of boxes: the position is each box's identity
          key={index}
          ref={(element) => {
            boxes.current[index] = element;
          }}
          id={`${id}-${index + 1}`}
          aria-label={index === 0 ? undefined : t("auth.code.digit", { number: index + 1 })}
          aria-labelledby={index === 0 ? `${id}-label ${id}-digit-1` : undefined}
          type="text"
          inputMode="numeric"
          autoComplete={index === 0 ? "one-time-code" : "off"}
          value={digit}
          aria-invalid={invalid}
          aria-describedby={errorId}
          onChange={(event) => onChange(index, event.target.value)}
          onKeyDown={(event) => onKeyDown(index, event)}
          onPaste={(event) => onPaste(index, event)}
          onFocus={(event) => event.target.select()}
        />
      ))}
      <input type="hidden" name={name} value={digits.join("")} />
      <span id={`${id}-digit-1`} hidden>
        {t("auth.code.digit", { number: 1 })}
      </span>
    </div>
  );
}
