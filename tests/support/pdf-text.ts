import { spawnSync } from "node:child_process";

/**
 * The text of a PDF as poppler's pdftotext reads it (Debian's poppler-utils, installed by .ci/run),
 * with -layout so that a row's cells stay on one line. Throws when pdftotext is missing or refuses
 * the file: an invoice that no reader opens is a failure, and so is a machine that cannot check it.
 */
export function pdfText(pdf: Uint8Array): string {
  const run = spawnSync("pdftotext", ["-layout", "-enc", "UTF-8", "-", "-"], { input: pdf, encoding: "utf8" });
  if (run.error) throw new Error(`pdftotext could not run (install poppler-utils): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`pdftotext failed (${run.status}): ${run.stderr}`);
  return run.stdout;
}
