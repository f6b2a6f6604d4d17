/**
 * Asks `probe` until it answers something truthy, and answers that; fails naming `what` after `timeoutMs`.
 * For waiting on a real concurrent event (a process, a delivery, a proxy's probe) that sends no signal.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  { timeoutMs = 60_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
