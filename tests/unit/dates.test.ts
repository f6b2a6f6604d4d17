import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime } from "../../api/platform/dates";
import { daysLeft, formatLongDate, formatShortDate, formatUtcDateTime } from "~/utils/dates";

// One date format on pages and in emails (issue 32, docs/decisions/050): the spec's 'DD MMMM, Y'
// ('05 March, 2027'), from one formatter in the API (its emails) and one in the portal. Saved cards
// keep 'Mon DD, YYYY' (commerce §9).

describe("dates as DESIGN §2 means them (the portal's formatter)", () => {
  it("formats 'DD MMMM, Y' and 'Mon DD, YYYY' in UTC", () => {
    expect(formatLongDate("2026-11-21T14:05:00.000Z")).toBe("21 November, 2026");
    expect(formatLongDate("2026-03-02T23:59:59.000Z")).toBe("02 March, 2026");
    expect(formatLongDate(new Date("2027-03-05T00:00:00.000Z"))).toBe("05 March, 2027");
    expect(formatShortDate("2026-11-21T00:00:00.000Z")).toBe("Nov 21, 2026");
    expect(formatShortDate("2027-03-05T10:00:00.000Z")).toBe("Mar 05, 2027");
  });

  it("writes a moment as 'YYYY-MM-DD HH:mm UTC', and text that is no date as it is", () => {
    expect(formatUtcDateTime("2027-03-05T07:04:59.999Z")).toBe("2027-03-05 07:04 UTC");
    expect(formatUtcDateTime("not a date")).toBe("not a date");
  });

  it("counts a started day as a day and stops at 0", () => {
    const now = new Date("2026-11-21T12:00:00.000Z");
    expect(daysLeft("2026-12-21T12:00:00.000Z", now)).toBe(30);
    expect(daysLeft("2026-11-21T13:00:00.000Z", now)).toBe(1);
    expect(daysLeft("2026-11-21T12:00:00.000Z", now)).toBe(0);
    expect(daysLeft("2026-10-01T00:00:00.000Z", now)).toBe(0);
  });
});

describe("dates in the API's emails", () => {
  it("writes 'DD MMMM, Y' in UTC, whatever the server's zone", () => {
    expect(formatDate("2027-03-05T00:00:00.000Z")).toBe("05 March, 2027");
    expect(formatDate("2026-12-31T23:59:59.999Z")).toBe("31 December, 2026");
    expect(formatDate(new Date("2027-01-29T12:00:00.000Z"))).toBe("29 January, 2027");
  });

  it("writes a moment as the date with the UTC time", () => {
    expect(formatDateTime(new Date("2026-12-29T07:04:00.000Z"))).toBe("29 December, 2026 at 07:04 UTC");
    expect(formatDateTime("2027-03-05T14:05:59.000Z")).toBe("05 March, 2027 at 14:05 UTC");
  });
});
