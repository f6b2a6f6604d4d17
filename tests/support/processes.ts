import type { ChildProcess } from "node:child_process";

/** A server a spec started itself: its process and everything it printed. */
export type StartedProcess = { child: ChildProcess; output: () => string };

/** Waits (up to a minute) until `url` answers 2xx; fails with the process's output when it exits or never does. */
export async function waitForHealth(url: string, started: StartedProcess, what = "the server") {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && started.child.exitCode === null) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become healthy:\n${started.output()}`);
}

/** The process's exit code, once it has exited. */
export async function exitOf(started: StartedProcess): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  return await new Promise((resolve) => started.child.once("exit", (code) => resolve(code)));
}
