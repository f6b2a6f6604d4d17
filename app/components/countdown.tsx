import { useEffect, useState } from "react";

/**
 * Seconds left, ticking once a second. The server renders the starting value (it knows when the code
 * was sent); React counts down from there. `restartKey` (e.g. the send time) restarts it after a resend.
 */
export function useCountdown(initialSeconds: number, restartKey: unknown) {
  const [left, setLeft] = useState(initialSeconds);
  // biome-ignore lint/correctness/useExhaustiveDependencies: restartKey is read by no one; its change is what restarts the countdown
  useEffect(() => {
    setLeft(initialSeconds);
    if (initialSeconds <= 0) return;
    const deadline = Date.now() + initialSeconds * 1000;
    const timer = setInterval(() => {
      const remaining = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      setLeft(remaining);
      if (remaining === 0) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [initialSeconds, restartKey]);
  return left;
}

/** 300 → "05 : 00" (identity §2: the expiry countdown shown as mm : ss). */
export function formatMinutesSeconds(seconds: number) {
  const mm = String(Math.floor(seconds / 60)).padStart(2, "0");
  const ss = String(seconds % 60).padStart(2, "0");
  return `${mm} : ${ss}`;
}
