// How fast this machine is, in two fixed pieces of work that `npm test` and `npm run bench` print with their figures:
// machines here differ up to twice in the suite's time, and not always where the first figure sees it.
import { pbkdf2Sync } from "node:crypto";
import { closeSync, fstatSync, openSync } from "node:fs";

/**
 * A fixed piece of single-threaded work, timed: machines here differ up to twice in speed (the same tree's
 * stages all took twice as long on one as on another), so the table says how fast this one was, and a
 * slower stage on a slower machine is not mistaken for a slower suite.
 */
export function referenceWorkMs(): number {
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 100_000_000; i++) x = (x * 31 + i) | 0;
  for (let i = 0; i < 60; i++) pbkdf2Sync("reference", "salt", 1000, 32, "sha256");
  return Math.round(performance.now() - started + (x & 0));
}

/**
 * A fixed piece of the kernel's work, timed: 20,000 system calls (fstat) and 64 MiB of fresh memory written (about
 * 8,700 page faults), after a warm-up. Two machines here with the same reference work above (623 and 586 ms) ran the
 * same suite in 1123 and 724 s: on the slower one, a virtual machine whose kernel traps to its host on every page
 * fault, a system call cost about 3 µs and a page fault about 15 µs, and the browser tests spend a quarter of their
 * CPU in the kernel (docs/decisions/079). This figure tells such a machine apart.
 */
export function referenceSystemWorkMs(): number {
  const kernelWork = (calls: number, mebibytes: number) => {
    const fd = openSync(process.execPath, "r");
    try {
      for (let i = 0; i < calls; i++) fstatSync(fd);
    } finally {
      closeSync(fd);
    }
    // 2 MiB at a time, mostly on pages the process has not touched before (about 8,700 faults for the 64 MiB).
    for (let i = 0; i < mebibytes / 2; i++) Buffer.allocUnsafeSlow(2 * 1024 * 1024).fill(i);
  };
  kernelWork(2_000, 8);
  const started = performance.now();
  kernelWork(20_000, 64);
  return Math.round(performance.now() - started);
}
