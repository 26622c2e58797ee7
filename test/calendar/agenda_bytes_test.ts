/**
 * GET /calendar/agenda answers byte for byte what it answered before its rows were packed (issue 19, second pass):
 * the previous statement (a column a field, timestamps by iso(), names joined) and its serialisation are the oracle,
 * on events across both clock changes, with every nullable field null and set, awkward texts and names, and pages.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import type { Db } from "../../src/core/db.ts";
import { cursorFields, decodeCursor, encodeCursor, nextLink } from "../../src/core/pagination.ts";
import { resolveWindow } from "../../src/calendar/window.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const rows = h.rows(ws);

// Texts a client may write: quotes, backslashes, commas, control characters (the unit separator among them),
// accents, CJK, emoji, a line break, empty.
const awkward = [
  "Viewing",
  'Jo "JJ" \\ Smith',
  "Flat 2, 14 Ashby Road",
  "Zoë O'Brien",
  "李小龍",
  "Ana 🏠 Smith",
  "tab\tand\u001fseparator\u0001",
  "line\nbreak\r\n",
  "</script><b>&amp;",
  "\u2028\u2029 ­",
  "",
];
const text = (i: number) => awkward[i % awkward.length]!;
const nonEmpty = (i: number) => text(i) || "x";

const staff = [
  await rows.user({ id: "staff-a", name: "Zoë O'Brien" }),
  await rows.user({ id: "staff_b", name: 'Jo "JJ" \\ Smith, tab\t\u001f' }),
  await rows.user({ id: "STAFF-c", name: "Ana 🏠 李" }),
];
const properties = [
  await rows.property({ id: "prop-1", label: "Flat 2, 14 Ashby Road" }),
  await rows.property({ id: "prop_2", label: 'naïve café ☕ "B"\n' }),
];
const contacts = [
  await rows.contact({ id: "con-1", name: "Tom \\ Baker" }),
  await rows.contact({ id: "con-2", name: "Siân\u001f, ütf" }),
];
const feedbacks = [
  null,
  { interest: "keen", themes: ["garden", 'quote "q"'], nextAction: "send_offer", note: "ring back\n" },
  { interest: null, themes: "not an array" },
  {},
  { themes: ["x", "🏠\u0001"], note: "🏠", extra: { a: [true, null] } },
];

// Starts around both clock changes of 2026 (and a week either side), some to the microsecond, some sharing a start.
const starts = [
  "2026-03-28 23:30:00",
  "2026-03-29 00:00:00",
  "2026-03-29 00:59:59.999999",
  "2026-03-29 01:00:00",
  "2026-03-29 01:00:00",
  "2026-03-29 22:30:00.0001",
  "2026-10-24 22:30:00",
  "2026-10-24 23:00:00",
  "2026-10-25 00:30:00.5",
  "2026-10-25 01:30:00",
  "2026-10-25 01:30:00",
  "2026-10-25 23:30:00.123456",
];
for (let i = 0; i < 60; i++) {
  const start = `${starts[i % starts.length]}+00`;
  const status = (["scheduled", "completed", "cancelled"] as const)[i % 3]!;
  const created = `2026-0${1 + (i % 9)}-1${i % 10} 0${i % 10}:1${i % 10}:0${i % 10}.${String(i * 7919).padStart(6, "0")}+00`;
  await db`
    insert into calendar_events (workspace_id, id, title, kind, subject_kind, subject_id, starts_at, ends_at, location,
      status, created_by_user_id, property_id, staff_user_id, contact_id, notes, revision, outcome, outcome_note,
      outcome_recorded_at, feedback, follow_up_task_id, cancel_reason, cancelled_at, created_at, updated_at)
    values (${ws.id}, ${i % 5 === 0 ? `ev-${String(i).padStart(2, "0")}` : `EV_${i}`}, ${nonEmpty(i)}, ${
      i % 4 === 0 ? "viewing" : nonEmpty(i + 3)
    }, ${i % 3 ? null : text(i + 1)}, ${i % 4 ? null : text(i + 2)},
      ${start}::text::timestamptz, ${start}::text::timestamptz + ${`${1 + (i % 30)} hours`}::text::interval,
      ${i % 6 === 5 ? null : text(i + 4)}, ${status}, ${i % 2 ? staff[0]! : null}, ${i % 3 ? properties[i % 2]! : null},
      ${i % 4 === 3 ? null : staff[i % 3]!}, ${i % 5 < 2 ? contacts[i % 2]! : null}, ${i % 3 === 1 ? text(i + 5) : null},
      ${1 + (i % 4)}, ${(["attended", "no_show", null] as const)[i % 3] ?? null}, ${i % 7 === 4 ? text(i + 6) : null},
      ${i % 3 === 2 || i % 5 === 1 ? null : created}::text::timestamptz,
      ${feedbacks[i % feedbacks.length] === null ? null : db.json(feedbacks[i % feedbacks.length] as never)},
      ${i % 8 === 0 ? `task-${i}` : null}, ${status === "cancelled" ? text(i + 7) : null},
      ${status === "cancelled" ? created : null}::text::timestamptz, ${created}::text::timestamptz,
      ${i % 2 ? created : `2026-11-2${i % 10} 10:00:00+00`}::text::timestamptz)`;
}

interface Query {
  from: string;
  to: string;
  staffId?: string;
  propertyId?: string;
  contactId?: string;
  kind?: string;
  includeCancelled?: boolean;
  limit?: number;
  cursor?: string;
}

/** The agenda as it was: its statement, then the page, the cursor, the field deleted and JSON.stringify. */
async function previous(
  d: Db,
  workspaceId: string,
  url: URL,
  q: Query,
): Promise<{ text: string; link: string | null }> {
  const window = resolveWindow(q, Date.now());
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, [cursorFields.instant, cursorFields.id]);
  const limit = q.limit ?? 200;
  const take = limit + 1;
  const t = (value: string) => d`(select ${value}::text)`;
  const instant = (value: number) => d`(select ${new Date(value)}::timestamptz)`;
  const filters = () => d`
    ${q.staffId !== undefined ? d`and e.staff_user_id = ${t(q.staffId)}` : d``}
    ${q.propertyId !== undefined ? d`and e.property_id = ${t(q.propertyId)}` : d``}
    ${q.contactId !== undefined ? d`and e.contact_id = ${t(q.contactId)}` : d``}
    ${q.kind !== undefined ? d`and e.kind = ${t(q.kind)}` : d``}
    ${q.includeCancelled ? d`` : d`and e.status <> 'cancelled'`}
    ${after ? d`and (e.starts_at, e.id) > ((select ${after[0]!}::text::timestamptz), ${t(after[1]!)})` : d``}`;
  const found = (await d`
    with running as materialized (
      select e.* from calendar_events e
      where e.workspace_id = ${t(workspaceId)}
        and tstzrange(e.starts_at, e.ends_at) @> ${instant(window.from)} and e.starts_at < ${instant(window.from)}
    ), page as (
      (select e.* from running e where true ${filters()} order by e.starts_at, e.id limit ${take})
      union all
      (select e.* from calendar_events e
       where e.workspace_id = ${t(workspaceId)}
         and e.starts_at >= ${instant(window.from)} and e.starts_at < ${instant(window.to)}
         ${filters()}
       order by e.starts_at, e.id limit ${take})
    ), staff as (
      select jsonb_object_agg(u.id, u.name) as names from users u
      where u.workspace_id = ${t(workspaceId)} and u.id in (select staff_user_id from page)
    )
    select e.id, e.title, e.kind, e.subject_kind, e.subject_id,
           iso(e.starts_at) as starts_at, iso(e.ends_at) as ends_at,
           e.location, e.status, e.created_by_user_id, e.property_id, p.label as property_label,
           e.staff_user_id as staff_id, e.staff_user_id, staff.names ->> e.staff_user_id as staff_name,
           e.contact_id, c.name as contact_name,
           e.notes, e.revision, e.outcome, e.outcome_note, iso(e.outcome_recorded_at) as outcome_recorded_at,
           case when e.feedback is null then null else json_build_object(
             'interest', e.feedback ->> 'interest',
             'themes', case when jsonb_typeof(e.feedback -> 'themes') = 'array' then e.feedback -> 'themes'
               else '[]'::jsonb end,
             'nextAction', e.feedback ->> 'nextAction',
             'note', e.feedback ->> 'note') end as feedback,
           e.follow_up_task_id, e.cancel_reason, iso(e.cancelled_at) as cancelled_at,
           iso(e.created_at) as created_at, iso(e.updated_at) as updated_at,
           e.starts_at::text as cursor_at
    from page e
    cross join staff
    left join properties p on p.workspace_id = e.workspace_id and p.id = e.property_id
    left join contacts c on c.workspace_id = e.workspace_id and c.id = e.contact_id
    order by e.starts_at, e.id
    limit ${take}`) as unknown as ({ id: string; cursorAt?: string } & Record<string, unknown>)[];
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const cursor = found.length > limit && last ? encodeCursor([last.cursorAt!, last.id]) : undefined;
  for (const row of page) delete row.cursorAt;
  const link =
    cursor === undefined
      ? null
      : nextLink(url, cursor, {
          from: new Date(window.from).toISOString(),
          to: new Date(window.to).toISOString(),
        });
  return { text: JSON.stringify(page), link };
}

/** Follows the service's links from a first query, checking each page's bytes and Link against the oracle. */
async function compareAll(first: Query): Promise<{ pages: number; events: number }> {
  let q: Query | undefined = first;
  let pages = 0;
  let events = 0;
  while (q) {
    const search: string = new URLSearchParams(
      Object.entries(q)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const path = `/calendar/agenda?${search}`;
    const res: { status: number; text: string; body: unknown; headers: Headers } = await h.request("GET", path, {
      key: ws.key,
    });
    expect(res.status).toBe(200);
    const expected = await previous(db, ws.id, new URL(`http://localhost${path}`), q);
    expect(res.text).toBe(expected.text);
    expect(res.headers.get("link")).toBe(expected.link);
    pages += 1;
    events += (res.body as unknown[]).length;
    const link: string | null = res.headers.get("link");
    if (!link) break;
    const next: URL = new URL(/^<([^>]+)>; rel="next"$/.exec(link)![1]!);
    q = {
      ...q,
      from: next.searchParams.get("from")!,
      to: next.searchParams.get("to")!,
      cursor: next.searchParams.get("cursor")!,
    };
  }
  return { pages, events };
}

describe("the agenda's bytes are those of the previous implementation", () => {
  test.each([
    ["the spring change, a 23-hour London day", { from: "2026-03-29", to: "2026-03-30" }],
    ["the autumn change, a 25-hour London day", { from: "2026-10-25", to: "2026-10-26" }],
    [
      "a week over the spring change, cancelled included",
      { from: "2026-03-25", to: "2026-04-01", includeCancelled: true },
    ],
    ["a week over the autumn change", { from: "2026-10-21", to: "2026-10-28" }],
    ["from inside running events, to the microsecond", { from: "2026-10-25T01:30:00.000Z", to: "2026-10-27" }],
    ["one member of staff", { from: "2026-03-01", to: "2026-05-01", staffId: "staff_b", includeCancelled: true }],
    ["one property", { from: "2026-10-01", to: "2026-11-01", propertyId: "prop_2" }],
    ["one contact", { from: "2026-03-01", to: "2026-05-01", contactId: "con-2", includeCancelled: true }],
    [
      "one kind with quotes and a backslash",
      { from: "2026-10-01", to: "2026-11-01", kind: 'Jo "JJ" \\ Smith', includeCancelled: true },
    ],
    ["nothing in the window", { from: "2026-07-01", to: "2026-07-02" }],
  ] as [string, Query][])("%s", async (_name, query) => {
    const { events } = await compareAll(query);
    if (!query.from.startsWith("2026-07")) expect(events).toBeGreaterThan(0);
  });

  test.each([1, 2, 3, 7])("pages of %i, following every Link (ties on the start broken by id)", async (limit) => {
    const spring = await compareAll({ from: "2026-03-28", to: "2026-03-31", includeCancelled: true, limit });
    const autumn = await compareAll({ from: "2026-10-24", to: "2026-10-27", limit });
    expect(spring.pages).toBeGreaterThan(1);
    expect(autumn.pages).toBeGreaterThan(1);
  });

  test("the seeded events hold every awkward text, null and set, and every feedback shape", async () => {
    const res = await h.request("GET", "/calendar/agenda?from=2026-03-01&to=2026-05-31&includeCancelled=true", {
      key: ws.key,
    });
    const more = await h.request("GET", "/calendar/agenda?from=2026-10-01&to=2026-12-31&includeCancelled=true", {
      key: ws.key,
    });
    const all = [...res.body, ...more.body] as Record<string, unknown>[];
    expect(all).toHaveLength(60);
    const texts = new Set(all.flatMap((e) => [e.title, e.kind, e.location, e.notes, e.staffName, e.contactName]));
    for (const t of awkward.filter((a) => a)) expect(texts.has(t)).toBe(true);
    for (const field of ["subjectKind", "subjectId", "location", "notes", "outcomeNote", "cancelReason"]) {
      expect(all.some((e) => e[field] === null)).toBe(true);
      expect(all.some((e) => e[field] === "")).toBe(true);
    }
    for (const field of ["createdByUserId", "propertyId", "staffId", "contactId", "followUpTaskId", "feedback"]) {
      expect(all.some((e) => e[field] === null)).toBe(true);
      expect(all.some((e) => e[field] !== null)).toBe(true);
    }
    expect(all.some((e) => /\.\d{2}[1-9]Z$/.test(String(e.createdAt)))).toBe(true);
    expect(all.some((e) => e.createdAt !== e.updatedAt)).toBe(true);
    expect(all.some((e) => e.outcomeRecordedAt === null && e.outcome !== null)).toBe(true);
  });
});
