/** The calendar group's operations. */
import { Type } from "@sinclair/typebox";
import { operation, Reply } from "../core/operation.ts";
import { isId } from "../core/schema.ts";
import { decodeCursor, encodeCursor, linkHeader, nextLink } from "../core/pagination.ts";
import { agendaPage } from "./queries.ts";
import { AgendaQuery, CalendarEvent } from "./schema.ts";
import { maxWindowDays, resolveWindow } from "./window.ts";

const cursorAt = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?\+00$/;

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
  ].join("\n"),
  query: AgendaQuery,
  response: Type.Array(CalendarEvent, { title: "Agenda" }),
  responseHeaders: linkHeader,
  run: async ({ db, principal, query, url }) => {
    const window = resolveWindow(query, Date.now());
    const after =
      query.cursor === undefined
        ? undefined
        : decodeCursor(query.cursor, (p) => p.length === 2 && cursorAt.test(String(p[0])) && isId(String(p[1])));
    const limit = query.limit ?? 200;
    const { events, startsAt } = await agendaPage(db, {
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
    const cursor = more ? encodeCursor([startsAt[limit - 1]!, events[limit - 1]!.id]) : undefined;
    if (cursor === undefined) return events;
    const link = nextLink(url, cursor, {
      from: new Date(window.from).toISOString(),
      to: new Date(window.to).toISOString(),
    });
    return new Reply(events, undefined, { link });
  },
});

/** Every operation of the group. */
export const operations = [agenda];
