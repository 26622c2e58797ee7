/** Calendar events for the calendar tests (users, properties and contacts come from test/support/rows.ts). */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";

/** The fields a test may set on an event; the rest get plain defaults. */
export interface EventFields {
  id?: string;
  title?: string;
  kind?: string;
  startsAt: string;
  endsAt?: string;
  status?: "scheduled" | "completed" | "cancelled";
  propertyId?: string | null;
  staffUserId?: string | null;
  contactId?: string | null;
  feedback?: unknown;
}

/** Inserts a calendar event (an hour long unless endsAt is given) and returns its id. */
export async function insertEvent(db: Db, workspaceId: string, fields: EventFields): Promise<string> {
  const id = fields.id ?? ulid();
  // Instants go to Postgres as text: postgres.js would pass them through a JS Date and drop the microseconds.
  const endsAt = fields.endsAt ?? new Date(Date.parse(fields.startsAt) + 3600_000).toISOString();
  await db`
    insert into calendar_events (workspace_id, id, title, kind, starts_at, ends_at, status, property_id, staff_user_id,
                                 contact_id, feedback, cancelled_at, cancel_reason)
    values (${workspaceId}, ${id}, ${fields.title ?? "Viewing"}, ${fields.kind ?? "viewing"}, ${fields.startsAt}::text::timestamptz, ${endsAt}::text::timestamptz,
            ${fields.status ?? "scheduled"}, ${fields.propertyId ?? null}, ${fields.staffUserId ?? null}, ${fields.contactId ?? null},
            ${fields.feedback === undefined ? null : db.json(fields.feedback as any)},
            ${fields.status === "cancelled" ? db`now()` : null}, ${fields.status === "cancelled" ? "Tenant unwell" : null})`;
  return id;
}
