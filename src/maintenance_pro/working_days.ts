/// <reference types="temporal-spec/global" />
/**
 * The hazard clocks' calendar arithmetic, on Temporal in Europe/London. Working days are every day but Saturdays,
 * Sundays and the England and Wales bank holidays (substitute days included). The London day of a clock's start is
 * day 0; a clock of N days is due at the end (23:59:59.999 London time) of the Nth working, or calendar, day after it.
 * In a year the bank-holiday list does not cover, only weekends are non-working days, and the count says so.
 */
import { zone } from "../core/dates.ts";

/** The bank holidays a count skips, and the years whose bank holidays the list holds in full. */
export interface WorkingCalendar {
  /** Bank holidays by ISO day (`2026-12-25`), with GOV.UK's title. */
  readonly holidays: ReadonlyMap<string, string>;
  /** The years the list covers; in any other year only Saturdays and Sundays are non-working days. */
  readonly knownYears: ReadonlySet<number>;
}

/** A calendar from bank holidays (`date` as `YYYY-MM-DD`) and the years their list covers. */
export function workingCalendar(
  holidays: Iterable<{ date: string; title: string }>,
  knownYears: Iterable<number>,
): WorkingCalendar {
  const byDay = new Map<string, string>();
  for (const { date, title } of holidays) byDay.set(Temporal.PlainDate.from(date).toString(), title);
  return { holidays: byDay, knownYears: new Set(knownYears) };
}

/** A bank holiday a count of working days passed over. */
export interface SkippedHoliday {
  day: Temporal.PlainDate;
  title: string;
}

/** Where a count of days from an instant ends, and what it skipped on the way. */
export interface DayCount {
  unit: "working_days" | "calendar_days";
  days: number;
  /** Day 0: the London day of the start. */
  anchorDay: Temporal.PlainDate;
  /** The London day the count ends on. */
  dueDay: Temporal.PlainDate;
  /** The end of `dueDay`: 23:59:59.999 London time. */
  dueAt: Temporal.Instant;
  /** Bank holidays on weekdays after day 0, up to `dueDay`, that were not counted, in order. */
  skipped: SkippedHoliday[];
  /** The years, after day 0, that the calendar does not cover: there only weekends were skipped. */
  unknownYears: number[];
}

/** The London calendar day of an instant. */
export function londonDay(instant: Temporal.Instant): Temporal.PlainDate {
  return instant.toZonedDateTimeISO(zone).toPlainDate();
}

/** The last millisecond of a London day: 23:59:59.999 in London, as an instant (GMT or BST as the day has it). */
export function endOfLondonDay(day: Temporal.PlainDate): Temporal.Instant {
  return day.add({ days: 1 }).toZonedDateTime(zone).toInstant().subtract({ milliseconds: 1 });
}

function weekend(day: Temporal.PlainDate): boolean {
  return day.dayOfWeek >= 6;
}

function checkedDays(days: number): number {
  if (!Number.isSafeInteger(days) || days < 0) throw new RangeError(`a count of days is a whole number >= 0: ${days}`);
  return days;
}

/** The end of the Nth working day after the London day of `start`, with the bank holidays it skipped. */
export function workingDaysAfter(calendar: WorkingCalendar, start: Temporal.Instant, days: number): DayCount {
  const anchorDay = londonDay(start);
  const skipped: SkippedHoliday[] = [];
  const unknownYears = new Set<number>();
  let day = anchorDay;
  for (let counted = 0; counted < checkedDays(days); ) {
    day = day.add({ days: 1 });
    if (weekend(day)) continue;
    if (!calendar.knownYears.has(day.year)) unknownYears.add(day.year);
    const holiday = calendar.holidays.get(day.toString());
    if (holiday === undefined) counted++;
    else skipped.push({ day, title: holiday });
  }
  return {
    unit: "working_days",
    days,
    anchorDay,
    dueDay: day,
    dueAt: endOfLondonDay(day),
    skipped,
    unknownYears: [...unknownYears],
  };
}

/** The end of the Nth calendar day after the London day of `start`: every day counts. */
export function calendarDaysAfter(start: Temporal.Instant, days: number): DayCount {
  const anchorDay = londonDay(start);
  const dueDay = anchorDay.add({ days: checkedDays(days) });
  return {
    unit: "calendar_days",
    days,
    anchorDay,
    dueDay,
    dueAt: endOfLondonDay(dueDay),
    skipped: [],
    unknownYears: [],
  };
}

const weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A day as explanations write it: "Wed 23 Dec 2026", or "Fri 25 Dec" without the year. */
export function formatDay(day: Temporal.PlainDate, options: { year?: boolean } = {}): string {
  const text = `${weekdays[day.dayOfWeek - 1]} ${day.day} ${months[day.month - 1]}`;
  return options.year === false ? text : `${text} ${day.year}`;
}

/** An instant as London's clock shows it: "Wed 23 Dec 2026 10:00 GMT" (BST in summer; seconds when not :00). */
export function formatLondonTime(instant: Temporal.Instant): string {
  const local = instant.toZonedDateTimeISO(zone);
  const two = (n: number) => String(n).padStart(2, "0");
  const seconds = local.second || local.millisecond ? `:${two(local.second)}` : "";
  const name = local.offsetNanoseconds === 0 ? "GMT" : local.offset === "+01:00" ? "BST" : `UTC${local.offset}`;
  return `${formatDay(local.toPlainDate())} ${two(local.hour)}:${two(local.minute)}${seconds} ${name}`;
}

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * A count as one English sentence: "10 working days after Wed 23 Dec 2026, skipping Fri 25 Dec, Mon 28 Dec and Fri
 * 1 Jan (bank holidays): due by the end of Mon 11 Jan 2027"; a count through a year the calendar does not cover says
 * that only weekends were skipped there.
 */
export function explainDayCount(count: DayCount): string {
  const unit = count.unit === "working_days" ? "working day" : "calendar day";
  let sentence = `${count.days} ${unit}${count.days === 1 ? "" : "s"} after ${formatDay(count.anchorDay)}`;
  if (count.skipped.length) {
    const days = count.skipped.map((s) => formatDay(s.day, { year: false }));
    sentence += `, skipping ${listed(days)} (bank holiday${days.length === 1 ? "" : "s"})`;
  }
  if (count.unknownYears.length) {
    const years = count.unknownYears.map(String);
    sentence +=
      `, counting only weekends as non-working days in ${listed(years)}, ` + `for which no bank holidays are known`;
  }
  return `${sentence}: due by the end of ${formatDay(count.dueDay)}`;
}

/** A clock's period: elapsed hours, working days or calendar days. */
export interface ClockPeriod {
  unit: "hours" | "working_days" | "calendar_days";
  amount: number;
}

/** When a clock is due, the sentence that says why, and what its count skipped. */
export interface ClockDue {
  dueAt: Temporal.Instant;
  explanation: string;
  /** The bank holidays a count of working days skipped (none for hours and calendar days). */
  skipped: SkippedHoliday[];
  /** Years without a known bank-holiday list that the count went through (see DayCount). */
  unknownYears: number[];
}

/**
 * The due instant of a clock started at `startsAt`: hours are elapsed time ("24 hours after Wed 23 Dec 2026 10:00
 * GMT: due by Thu 24 Dec 2026 10:00 GMT"); days end at the end of a London day, as workingDaysAfter and
 * calendarDaysAfter count them.
 */
export function clockDue(calendar: WorkingCalendar, startsAt: Temporal.Instant, period: ClockPeriod): ClockDue {
  if (period.unit === "hours") {
    if (!Number.isSafeInteger(period.amount) || period.amount < 0)
      throw new RangeError(`a count of hours is a whole number >= 0: ${period.amount}`);
    const dueAt = startsAt.add({ hours: period.amount });
    const hours = `${period.amount} hour${period.amount === 1 ? "" : "s"}`;
    const explanation = `${hours} after ${formatLondonTime(startsAt)}: due by ${formatLondonTime(dueAt)}`;
    return { dueAt, explanation, skipped: [], unknownYears: [] };
  }
  const count =
    period.unit === "working_days"
      ? workingDaysAfter(calendar, startsAt, period.amount)
      : calendarDaysAfter(startsAt, period.amount);
  return {
    dueAt: count.dueAt,
    explanation: explainDayCount(count),
    skipped: count.skipped,
    unknownYears: count.unknownYears,
  };
}

// ── The same arithmetic on epoch milliseconds, for answering many clocks at a time ──
// A repairs page answers ~150 clocks; Temporal costs ~13 µs a clock. London's offsets are read from Temporal once a
// year (its transitions), and a count of days, which depends only on its London day 0 and its period, is made once a
// calendar by the functions above and kept: the answers are theirs, byte for byte.

const dayMs = 86_400_000;
/** London's offsets in a UTC year: from each `at` (epoch ms) on, `offset` ms; the first `at` is the year's start. */
const londonOffsets = new Map<number, { at: number; offset: number }[]>();

function offsetsOfYear(year: number): { at: number; offset: number }[] {
  let spans = londonOffsets.get(year);
  if (spans) return spans;
  const start = new Date(0).setUTCFullYear(year, 0, 1);
  const end = new Date(0).setUTCFullYear(year + 1, 0, 1);
  let local = Temporal.Instant.fromEpochMilliseconds(start).toZonedDateTimeISO(zone);
  spans = [{ at: start, offset: local.offsetNanoseconds / 1e6 }];
  for (let next = local.getTimeZoneTransition("next"); next && next.epochMilliseconds < end; ) {
    spans.push({ at: next.epochMilliseconds, offset: next.offsetNanoseconds / 1e6 });
    local = next;
    next = local.getTimeZoneTransition("next");
  }
  londonOffsets.set(year, spans);
  return spans;
}

/** London's UTC offset at an instant (epoch ms), in ms. */
export function londonOffsetMs(epochMs: number): number {
  const spans = offsetsOfYear(new Date(epochMs).getUTCFullYear());
  let offset = spans[0]!.offset;
  for (const span of spans) if (span.at <= epochMs) offset = span.offset;
  return offset;
}

/** The London day of an instant (epoch ms), as days since 1970-01-01. */
export function londonDayNumber(epochMs: number): number {
  return Math.floor((epochMs + londonOffsetMs(epochMs)) / dayMs);
}

/** An instant (epoch ms) as formatLondonTime writes it. */
export function formatLondonMs(epochMs: number): string {
  const offset = londonOffsetMs(epochMs);
  if ((offset !== 0 && offset !== 3_600_000) || !Number.isInteger(epochMs))
    return formatLondonTime(Temporal.Instant.fromEpochMilliseconds(epochMs));
  const local = new Date(epochMs + offset);
  const two = (n: number) => String(n).padStart(2, "0");
  const seconds = local.getUTCSeconds() || local.getUTCMilliseconds() ? `:${two(local.getUTCSeconds())}` : "";
  const day = `${weekdays[(local.getUTCDay() + 6) % 7]} ${local.getUTCDate()} ${months[local.getUTCMonth()]}`;
  const time = `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}`;
  return `${day} ${local.getUTCFullYear()} ${time}${seconds} ${offset === 0 ? "GMT" : "BST"}`;
}

/** A clock's due instant (epoch ms and as answers write it) and its explanation. */
export interface DueMs {
  dueMs: number;
  dueText: string;
  explanation: string;
}

/** Counts of days by calendar and period (the object): London day 0 → what clockDue answers for a start that day. */
const dayCounts = new WeakMap<WorkingCalendar, WeakMap<ClockPeriod, Map<number, DueMs>>>();
/** Kept counts a calendar and period at most (each is ~200 bytes): past it they are made again. */
const maxDayCounts = 20_000;

/** clockDue for a start given in epoch ms (whole milliseconds), with its answer's texts. */
export function clockDueMs(calendar: WorkingCalendar, startMs: number, period: ClockPeriod): DueMs {
  if (period.unit === "hours") {
    if (!Number.isSafeInteger(period.amount) || period.amount < 0)
      throw new RangeError(`a count of hours is a whole number >= 0: ${period.amount}`);
    const dueMs = startMs + period.amount * 3_600_000;
    const hours = `${period.amount} hour${period.amount === 1 ? "" : "s"}`;
    const explanation = `${hours} after ${formatLondonMs(startMs)}: due by ${formatLondonMs(dueMs)}`;
    return { dueMs, dueText: new Date(dueMs).toISOString(), explanation };
  }
  let byPeriod = dayCounts.get(calendar);
  if (!byPeriod) {
    byPeriod = new WeakMap();
    dayCounts.set(calendar, byPeriod);
  }
  let counts = byPeriod.get(period);
  if (!counts) {
    counts = new Map();
    byPeriod.set(period, counts);
  }
  const key = londonDayNumber(startMs);
  let due = counts.get(key);
  if (!due) {
    const made = clockDue(calendar, Temporal.Instant.fromEpochMilliseconds(startMs), period);
    const dueMs = made.dueAt.epochMilliseconds;
    due = { dueMs, dueText: new Date(dueMs).toISOString(), explanation: made.explanation };
    if (counts.size >= maxDayCounts) counts.clear();
    counts.set(key, due);
  }
  return due;
}
