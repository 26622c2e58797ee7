/** The calendar group's operations. */
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { operation, RawJson, Reply } from "../core/operation.ts";
import { cursorFields, decodeCursor, encodeCursor, linkHeader, nextLink } from "../core/pagination.ts";
import type { Db } from "../core/db.ts";
import { addLondonDays, londonMidnight, londonToday } from "../core/dates.ts";
import { agendaPage, readDays, servableDays, storeDays, storedDaysRange } from "./queries.ts";
import { AgendaQuery, CalendarEvent, maxLimit } from "./schema.ts";
import { dayTextsOf, daysReadOf, type StoredDays, storedDaysOf, wholeDays } from "./stored_days.ts";
import { maxWindowDays, resolveWindow } from "./window.ts";

/** Calendar events overlapping a window. */
export const agenda = operation({
  id: "calendar.agenda",
  group: "calendar",
  method: "GET",
  path: "/calendar/agenda",
  summary: "Calendar events overlapping a window.",
  description: [
    "Lists the calendar events that overlap the window [`from`, `to`): those with `startsAt < to` and `endsAt > from`,",
    "so an event already running at `from`, or still running at `to`, is listed.",
    "",
    "- The window: `from` defaults to today 00:00 in Europe/London, `to` to seven London days after `from`.",
    "  A date means 00:00 that day in London, so a window of dates follows summer time: the last Sunday of March",
    "  lasts 23 hours, the last Sunday of October 25. `to` must be after `from` and at most",
    `  ${maxWindowDays} London days after it; otherwise 400 \`RequestInvalid\` naming the parameter.`,
    "- Order: `startsAt`, then `id`.",
    "- Filters: `staffId` (staff are users: the event's `staffUserId`), `propertyId`, `contactId`, `kind`; cancelled",
    "  events (status `cancelled`) only with `includeCancelled=true`. Unknown query parameters are refused (400).",
    "- Pages: `limit` (default 200, at most 500). When more events follow, the answer carries",
    '  `Link: <…>; rel="next"`, an absolute URL repeating the query with a `cursor` and with `from` and `to` pinned to',
    "  the instants this page used (so a default window does not move at midnight). The body stays a plain array.",
    "  A cursor names a position in the order: following the links lists every event exactly once, even while events",
    "  are added or changed; an event added behind the position already reached is not listed.",
    "- `propertyLabel`, `staffName` and `contactName` are read from the property, user and contact with the event.",
    "- A page always reflects every write committed before the request. First pages for one member of staff or for",
    "  everyone, with no other filter, are kept computed by London day and served from there, any window cut from the",
    "  days it touches (the same events, the same bytes); every write to an event, and every change of a name shown,",
    "  discards them in its own transaction.",
  ].join("\n"),
  query: AgendaQuery,
  response: Type.Array(CalendarEvent, { title: "Agenda" }),
  responseHeaders: linkHeader,
  // A page over stored days (sql/0023) is the key-check read: such a request costs one statement.
  keyCheckRead: (db, workspace, _params, query) => {
    const window = windowOrUndefined(query);
    const sd = window && storedDaysOf(query, window);
    return sd && servableDays(db, workspace, sd);
  },
  run: async ({ app, db, principal, query, url, keyCheckRead }) => {
    const window = resolveWindow(query, Date.now());
    const sd = storedDaysOf(query, window);
    const limit = query.limit ?? 200;
    let version: number | undefined;
    if (sd) {
      const read = daysReadOf(
        keyCheckRead ? (keyCheckRead.value as string) : await readDays(db, principal.workspaceId, sd),
        sd,
      );
      if (read.found && read.count <= limit) return new Reply<Events>(new RawJson(read.body));
      if (!read.found) version = read.version;
    }
    // The position after which the page starts: the last event's starts_at and id.
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, [cursorFields.instant, cursorFields.id]);
    const { events, startsAt, endsAt } = await agendaPage(db, {
      workspaceId: principal.workspaceId,
      from: new Date(window.from),
      to: new Date(window.to),
      after: after ? { at: after[0]!, id: after[1]! } : undefined,
      staffId: query.staffId,
      propertyId: query.propertyId,
      contactId: query.contactId,
      kind: query.kind,
      includeCancelled: query.includeCancelled ?? false,
      take: limit + 1,
    });
    const more = events.length > limit;
    if (more) events.length = limit;
    if (sd && version !== undefined && !more) {
      // The whole window's events: its days are stored for the next pages over them (a cut window's days computed
      // whole first, in a statement of their own).
      const texts = events.map((e) => JSON.stringify(e));
      try {
        if (wholeDays(sd)) {
          const days = dayTextsOf(sd, texts, startsAt, endsAt);
          await storeDays(db, { workspaceId: principal.workspaceId, sd, version, texts: days });
        } else await storeWholeDays(db, principal.workspaceId, sd, version);
      } catch (error) {
        // The page is right without them: the next read computes it again. A held day is expected under
        // concurrent stores; anything else is worth a warning.
        const held = (error as { code?: string }).code === "55P03";
        const message = String((error as Error).message ?? error);
        app.log[held ? "debug" : "warn"]("agenda days not stored", { error: message });
      }
      return new Reply<Events>(new RawJson(`[${texts.join(",")}]`));
    }
    const cursor = more ? encodeCursor([startsAt[limit - 1]!, events[limit - 1]!.id]) : undefined;
    if (cursor === undefined) return events;
    const link = nextLink(url, cursor, {
      from: new Date(window.from).toISOString(),
      to: new Date(window.to).toISOString(),
    });
    return new Reply(events, undefined, { link });
  },
});

type Events = Static<typeof CalendarEvent>[];

/**
 * Computes a cut window's days whole (from the first's 00:00 to the end's) and stores them, when they are all within
 * storedDaysRange and hold at most the longest page's events.
 */
async function storeWholeDays(db: Db, workspaceId: string, sd: StoredDays, version: number): Promise<void> {
  const today = londonMidnight(londonToday(Date.now()));
  const [first, end] = [londonMidnight(sd.days[0]!), londonMidnight(sd.end)];
  if (first < addLondonDays(today, -storedDaysRange.before)) return;
  if (end > addLondonDays(today, storedDaysRange.after + 1)) return;
  const whole: StoredDays = { staff: sd.staff, days: sd.days, end: sd.end };
  const page = await agendaPage(db, {
    workspaceId,
    from: new Date(first),
    to: new Date(end),
    staffId: sd.staff === "" ? undefined : sd.staff,
    includeCancelled: false,
    take: maxLimit + 1,
  });
  if (page.events.length > maxLimit) return;
  const texts = dayTextsOf(
    whole,
    page.events.map((e) => JSON.stringify(e)),
    page.startsAt,
    page.endsAt,
  );
  await storeDays(db, { workspaceId, sd: whole, version, texts });
}

/** The window of a query, or undefined when its bounds are refused (step 9 refuses them then). */
function windowOrUndefined(query: { from?: string; to?: string }) {
  try {
    return resolveWindow(query, Date.now());
  } catch {
    return undefined;
  }
}

/** Every operation of the group. */
export const operations = [agenda];
