import { describe, expect, it } from "vitest";
import { daysLeft, formatLongDate, formatShortDate } from "~/utils/dates.server";

describe("dates as DESIGN §2 means them", () => {
  it("formats 'DD MMMM, Y' and 'Mon DD, YYYY' in UTC", () => {
    expect(formatLongDate("2026-11-21T14:05:00.000Z")).toBe("21 November, 2026");
    expect(formatLongDate("2026-03-02T23:59:59.000Z")).toBe("02 March, 2026");
    expect(formatShortDate("2026-11-21T00:00:00.000Z")).toBe("Nov 21, 2026");
  });

  it("counts a started day as a day and stops at 0", () => {
    const now = new Date("2026-11-21T12:00:00.000Z");
    expect(daysLeft("2026-12-21T12:00:00.000Z", now)).toBe(30);
    expect(daysLeft("2026-11-21T13:00:00.000Z", now)).toBe(1);
    expect(daysLeft("2026-11-21T12:00:00.000Z", now)).toBe(0);
    expect(daysLeft("2026-10-01T00:00:00.000Z", now)).toBe(0);
  });
});
