/** TypeBox schemas of the calendar group. */
import { Type } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";
import { dateRangeText } from "../core/dates.ts";
import { Cursor, Limit } from "../core/pagination.ts";
import { boundPattern } from "./window.ts";

const S = Type.String();

/** Feedback recorded after a viewing or visit. */
export const Feedback = Strict(
  {
    interest: Nullable(Type.String({ description: "How keen the person is; `keen` is one value." })),
    themes: Type.Array(S, { description: "Themes raised; empty when none." }),
    nextAction: Nullable(Type.String({ description: "What should happen next; `send_offer` is one value." })),
    note: Nullable(S),
  },
  { title: "CalendarEventFeedback" },
);

/** A calendar event. */
export const CalendarEvent = Strict(
  {
    id: Id,
    title: S,
    kind: Type.String({ description: "Free text chosen by the workspace (viewing, inspection, …)." }),
    subjectKind: Nullable(S),
    subjectId: Nullable(S),
    startsAt: Instant,
    endsAt: Instant,
    location: Nullable(S),
    status: Type.Union([Type.Literal("scheduled"), Type.Literal("completed"), Type.Literal("cancelled")]),
    createdByUserId: Nullable(S),
    propertyId: Nullable(Id),
    propertyLabel: Nullable(
      Type.String({ description: "The property's label, read with the event; null when no property." }),
    ),
    staffId: Nullable(
      Type.String({
        description:
          "The member of staff the event is for. Staff are users of the workspace: this is the same value as " +
          "`staffUserId`.",
      }),
    ),
    staffUserId: Nullable(Type.String({ description: "The user id of the member of staff (same as `staffId`)." })),
    staffName: Nullable(Type.String({ description: "The user's name, read with the event." })),
    contactId: Nullable(Id),
    contactName: Nullable(Type.String({ description: "The contact's name, read with the event." })),
    notes: Nullable(S),
    revision: Type.Integer({ minimum: 1 }),
    outcome: Nullable(Type.Union([Type.Literal("attended"), Type.Literal("no_show")])),
    outcomeNote: Nullable(S),
    outcomeRecordedAt: Nullable(Instant),
    feedback: Nullable(Feedback),
    followUpTaskId: Nullable(S),
    cancelReason: Nullable(S),
    cancelledAt: Nullable(Instant),
    createdAt: Instant,
    updatedAt: Instant,
  },
  { title: "CalendarEvent", description: "A calendar event. Every field is present; a field with no value is null." },
);

const Bound = (what: string) =>
  Type.String({
    pattern: boundPattern,
    description:
      `${what}: a date \`YYYY-MM-DD\`, meaning 00:00 that day in Europe/London (summer time ` +
      `included), or an RFC 3339 instant with its offset (\`2026-03-29T09:00:00Z\`, ` +
      `\`2026-03-29T10:00:00+01:00\`), taken to the millisecond. Dates ${dateRangeText} (an instant's date as ` +
      "written).",
  });

/** The agenda's query parameters. */
/** The most events an agenda page lists. */
export const maxLimit = 500;

export const AgendaQuery = Strict({
  from: Type.Optional(Bound("Start of the window, inclusive; today 00:00 in London when absent")),
  to: Type.Optional(
    Bound(
      "End of the window, exclusive; seven London days after `from` when absent. After `from`, at most 92 London " +
        "days after it",
    ),
  ),
  staffId: Type.Optional(Type.String({ ...Id, description: "Only events of this member of staff (a user id)." })),
  propertyId: Type.Optional(Type.String({ ...Id, description: "Only events at this property." })),
  contactId: Type.Optional(Type.String({ ...Id, description: "Only events with this contact." })),
  kind: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Only events of this kind (exact match)." }),
  ),
  includeCancelled: Type.Optional(
    Type.Boolean({ description: "`true` lists cancelled events too; they are left out otherwise." }),
  ),
  limit: Type.Optional(Limit(200, maxLimit)),
  cursor: Type.Optional(Cursor),
});
