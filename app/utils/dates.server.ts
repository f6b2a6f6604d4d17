// The portal's date formatter lives in ./dates (it runs in the browser too); this name stays for the
// modules that import it (docs/decisions/050).
export { daysLeft, formatLongDate, formatShortDate } from "./dates";
