/*
 * The one way the API writes a date for people (its emails and PDFs): the spec's 'DD MMMM, Y'
 * ('05 March, 2027', DESIGN §2), in UTC whatever the server's zone, and a moment as that date with
 * the UTC time. The portal has its own formatter with the same output (app/utils/dates.ts);
 * docs/decisions/050.
 */

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const two = (n: number) => String(n).padStart(2, "0");

/** '05 March, 2027'. */
export function formatDate(at: string | Date): string {
  const d = new Date(at);
  return `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

/** '05 March, 2027 at 14:05 UTC'. */
export function formatDateTime(at: string | Date): string {
  const d = new Date(at);
  return `${formatDate(d)} at ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}
