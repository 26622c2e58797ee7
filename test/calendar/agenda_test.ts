/** GET /calendar/agenda. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { inlineRefs } from "../support/openapi.ts";
import { londonMidnight, londonToday } from "../../src/core/dates.ts";
import { insertEvent } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

const agenda = (key: string, query: string) => h.request("GET", `/calendar/agenda${query}`, { key });
const ids = (body: { id: string }[]) => body.map((e) => e.id);
const at = (t: number) => new Date(t).toISOString();

/** Follows the Link headers from a first request to the last page; `between` runs before each next page. */
async function walk(key: string, query: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: string[] = [];
  let path: string | null = `/calendar/agenda${query}`;
  let pages = 0;
  while (path) {
    const res = await h.request("GET", path, { key });
    expect(res.status).toBe(200);
    seen.push(...ids(res.body));
    pages += 1;
    const link = res.headers.get("link");
    if (!link) break;
    const m = /^<(http:\/\/localhost\/calendar\/agenda\?[^>]+)>; rel="next"$/.exec(link);
    expect(m).not.toBeNull();
    const next: URL = new URL(m![1]!);
    path = `${next.pathname}${next.search}`;
    await between(pages);
  }
  return { seen, pages };
}

describe("the window", () => {
  test("lists events overlapping [from, to): running across either end, but not ending at from or starting at to", async () => {
    const ws = await h.workspace();
    const from = "2026-05-10T09:00:00.000Z";
    const to = "2026-05-10T17:00:00.000Z";
    const e = {
      endsAtFrom: await insertEvent(db, ws.id, { startsAt: "2026-05-10T08:00:00Z", endsAt: from }),
      acrossFrom: await insertEvent(db, ws.id, { startsAt: "2026-05-10T08:30:00Z", endsAt: "2026-05-10T09:30:00Z" }),
      wholeWeek: await insertEvent(db, ws.id, { startsAt: "2026-05-05T00:00:00Z", endsAt: "2026-05-15T00:00:00Z" }),
      atFrom: await insertEvent(db, ws.id, { startsAt: from }),
      inside: await insertEvent(db, ws.id, { startsAt: "2026-05-10T12:00:00Z" }),
      acrossTo: await insertEvent(db, ws.id, { startsAt: "2026-05-10T16:30:00Z" }),
      startsAtTo: await insertEvent(db, ws.id, { startsAt: to }),
      dayBefore: await insertEvent(db, ws.id, { startsAt: "2026-05-09T12:00:00Z" }),
    };
    const res = await agenda(ws.key, `?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([e.wholeWeek, e.acrossFrom, e.atFrom, e.inside, e.acrossTo]);
    expect(res.headers.get("link")).toBeNull();
  });

  test("a date window on the last Sunday of October runs 25 hours, from 00:00 BST to 00:00 GMT", async () => {
    const ws = await h.workspace();
    const lateSaturday = await insertEvent(db, ws.id, {
      startsAt: "2026-10-24T22:30:00Z",
      endsAt: "2026-10-24T22:45:00Z",
    }); // 23:30 BST on the 24th
    const firstMinute = await insertEvent(db, ws.id, {
      startsAt: "2026-10-24T23:00:00Z",
      endsAt: "2026-10-24T23:15:00Z",
    }); // 00:00 BST on the 25th
    const secondOneThirty = await insertEvent(db, ws.id, {
      startsAt: "2026-10-25T01:30:00Z",
      endsAt: "2026-10-25T01:45:00Z",
    }); // 01:30 GMT, the repeated hour
    const lateSunday = await insertEvent(db, ws.id, {
      startsAt: "2026-10-25T23:30:00Z",
      endsAt: "2026-10-25T23:45:00Z",
    }); // 23:30 GMT on the 25th
    const monday = await insertEvent(db, ws.id, { startsAt: "2026-10-26T00:00:00Z", endsAt: "2026-10-26T00:15:00Z" }); // 00:00 GMT on the 26th
    const res = await agenda(ws.key, "?from=2026-10-25&to=2026-10-26");
    expect(ids(res.body)).toEqual([firstMinute, secondOneThirty, lateSunday]);
    expect(ids(res.body)).not.toContain(lateSaturday);
    expect(ids(res.body)).not.toContain(monday);
  });

  test("a date window on the last Sunday of March runs 23 hours, from 00:00 GMT to 00:00 BST", async () => {
    const ws = await h.workspace();
    const lateSaturday = await insertEvent(db, ws.id, {
      startsAt: "2026-03-28T23:30:00Z",
      endsAt: "2026-03-28T23:45:00Z",
    }); // 23:30 GMT on the 28th
    const firstMinute = await insertEvent(db, ws.id, {
      startsAt: "2026-03-29T00:00:00Z",
      endsAt: "2026-03-29T00:15:00Z",
    });
    const afterChange = await insertEvent(db, ws.id, {
      startsAt: "2026-03-29T01:00:00Z",
      endsAt: "2026-03-29T01:15:00Z",
    }); // 02:00 BST
    const lateSunday = await insertEvent(db, ws.id, {
      startsAt: "2026-03-29T22:30:00Z",
      endsAt: "2026-03-29T22:45:00Z",
    }); // 23:30 BST
    const monday = await insertEvent(db, ws.id, { startsAt: "2026-03-29T23:00:00Z", endsAt: "2026-03-29T23:15:00Z" }); // 00:00 BST on the 30th
    const res = await agenda(ws.key, "?from=2026-03-29&to=2026-03-30");
    expect(ids(res.body)).toEqual([firstMinute, afterChange, lateSunday]);
    expect(ids(res.body)).not.toContain(lateSaturday);
    expect(ids(res.body)).not.toContain(monday);
  });

  test("instants with an offset are read as the instants they name", async () => {
    const ws = await h.workspace();
    const nine = await insertEvent(db, ws.id, { startsAt: "2026-06-01T08:00:00Z" }); // 09:00 BST
    const res = await agenda(
      ws.key,
      `?from=${encodeURIComponent("2026-06-01T09:00:00+01:00")}&to=${encodeURIComponent("2026-06-01T09:30:00+01:00")}`,
    );
    expect(ids(res.body)).toEqual([nine]);
  });

  test("the default window is today 00:00 in London to seven London days later", async () => {
    const ws = await h.workspace();
    const midnight = londonMidnight(londonToday(Date.now()));
    const before = await insertEvent(db, ws.id, {
      startsAt: at(midnight - 2 * 3600_000),
      endsAt: at(midnight - 3600_000),
    });
    const first = await insertEvent(db, ws.id, { startsAt: at(midnight + 60_000) });
    const sixth = await insertEvent(db, ws.id, { startsAt: at(midnight + 6 * 86_400_000 + 3600_000) });
    const ninth = await insertEvent(db, ws.id, { startsAt: at(midnight + 8 * 86_400_000 + 3 * 3600_000) });
    const res = await agenda(ws.key, "");
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([first, sixth]);
    expect(ids(res.body)).not.toContain(before);
    expect(ids(res.body)).not.toContain(ninth);
  });

  test.each([
    ["to before from", "?from=2026-05-02&to=2026-05-01", "/query/to"],
    ["to equal to from", "?from=2026-05-02T00:00:00Z&to=2026-05-02T00:00:00Z", "/query/to"],
    ["more than 92 days", "?from=2026-01-01&to=2026-04-04", "/query/to"],
    ["a date that does not exist", "?from=2026-02-30", "/query/from"],
    ["an instant without an offset", "?from=2026-05-02T09:00:00", "/query/from"],
    ["a limit over 500", "?limit=501", "/query/limit"],
    ["a limit of 0", "?limit=0", "/query/limit"],
    ["includeCancelled that is not a boolean", "?includeCancelled=maybe", "/query/includeCancelled"],
    ["an unknown parameter", "?status=cancelled", "/query/status"],
    ["a made-up cursor", "?cursor=bm90LWEtY3Vyc29y", "/query/cursor"],
    ["a cursor with the wrong alphabet", "?cursor=a%2Bb", "/query/cursor"],
  ])("%s is RequestInvalid", async (_name, query, path) => {
    const ws = await h.workspace();
    const res = await agenda(ws.key, query);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  test("92 London days are accepted even across a clock change", async () => {
    const ws = await h.workspace();
    const res = await agenda(ws.key, "?from=2026-03-01&to=2026-06-01");
    expect(res.status).toBe(200);
  });
});

describe("filters, order and labels", () => {
  test("events come by startsAt then id, with labels read from their property, user and contact", async () => {
    const ws = await h.workspace();
    const staff = await h.rows(ws).user({ name: "Priya Shah" });
    const property = await h.rows(ws).property({ label: "Flat 2, 14 Ashby Road" });
    const contact = await h.rows(ws).contact({ name: "Tom Baker" });
    const startsAt = "2026-05-10T10:00:00Z";
    const b = await insertEvent(db, ws.id, {
      id: "evt-b",
      startsAt,
      staffUserId: staff,
      propertyId: property,
      contactId: contact,
      feedback: { interest: "keen", themes: ["garden"], nextAction: "send_offer" },
    });
    const a = await insertEvent(db, ws.id, { id: "evt-a", startsAt });
    const early = await insertEvent(db, ws.id, { id: "evt-z", startsAt: "2026-05-10T09:00:00Z" });
    const res = await agenda(ws.key, "?from=2026-05-10&to=2026-05-11");
    expect(ids(res.body)).toEqual([early, a, b]);
    const full = res.body[2];
    expect(full).toMatchObject({
      id: "evt-b",
      startsAt: "2026-05-10T10:00:00.000Z",
      endsAt: "2026-05-10T11:00:00.000Z",
      status: "scheduled",
      propertyId: property,
      propertyLabel: "Flat 2, 14 Ashby Road",
      staffId: staff,
      staffUserId: staff,
      staffName: "Priya Shah",
      contactId: contact,
      contactName: "Tom Baker",
      feedback: { interest: "keen", themes: ["garden"], nextAction: "send_offer", note: null },
      revision: 1,
      outcome: null,
      cancelledAt: null,
    });
    expect(Object.keys(full)).toHaveLength(28);
    expect(res.body[1]).toMatchObject({
      propertyLabel: null,
      staffId: null,
      staffUserId: null,
      staffName: null,
      contactName: null,
      feedback: null,
    });
  });

  test("staffId, propertyId, contactId and kind each narrow the list, and combine", async () => {
    const ws = await h.workspace();
    const priya = await h.rows(ws).user({ name: "Priya" });
    const sam = await h.rows(ws).user({ name: "Sam" });
    const flat = await h.rows(ws).property({ label: "Flat" });
    const house = await h.rows(ws).property({ label: "House" });
    const tom = await h.rows(ws).contact({ name: "Tom" });
    const day = (h: number) => `2026-05-10T${String(h).padStart(2, "0")}:00:00Z`;
    const e1 = await insertEvent(db, ws.id, {
      startsAt: day(9),
      staffUserId: priya,
      propertyId: flat,
      contactId: tom,
      kind: "viewing",
    });
    const e2 = await insertEvent(db, ws.id, {
      startsAt: day(10),
      staffUserId: sam,
      propertyId: flat,
      kind: "inspection",
    });
    const e3 = await insertEvent(db, ws.id, {
      startsAt: day(11),
      staffUserId: priya,
      propertyId: house,
      kind: "inspection",
    });
    const q = "?from=2026-05-10&to=2026-05-11";
    expect(ids((await agenda(ws.key, `${q}&staffId=${priya}`)).body)).toEqual([e1, e3]);
    expect(ids((await agenda(ws.key, `${q}&propertyId=${flat}`)).body)).toEqual([e1, e2]);
    expect(ids((await agenda(ws.key, `${q}&contactId=${tom}`)).body)).toEqual([e1]);
    expect(ids((await agenda(ws.key, `${q}&kind=inspection`)).body)).toEqual([e2, e3]);
    expect(ids((await agenda(ws.key, `${q}&kind=inspection&staffId=${priya}`)).body)).toEqual([e3]);
    expect(ids((await agenda(ws.key, `${q}&kind=party`)).body)).toEqual([]);
  });

  test("cancelled events are listed only with includeCancelled=true", async () => {
    const ws = await h.workspace();
    const kept = await insertEvent(db, ws.id, { startsAt: "2026-05-10T09:00:00Z" });
    const done = await insertEvent(db, ws.id, { startsAt: "2026-05-10T10:00:00Z", status: "completed" });
    const cancelled = await insertEvent(db, ws.id, { startsAt: "2026-05-10T11:00:00Z", status: "cancelled" });
    const q = "?from=2026-05-10&to=2026-05-11";
    expect(ids((await agenda(ws.key, q)).body)).toEqual([kept, done]);
    expect(ids((await agenda(ws.key, `${q}&includeCancelled=false`)).body)).toEqual([kept, done]);
    const all = await agenda(ws.key, `${q}&includeCancelled=true`);
    expect(ids(all.body)).toEqual([kept, done, cancelled]);
    expect(all.body[2]).toMatchObject({ status: "cancelled", cancelReason: "Tenant unwell" });
    expect(all.body[2].cancelledAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test("another workspace's events are never listed, whatever the filters", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const theirStaff = await h.rows(other).user({ name: "Theirs" });
    await insertEvent(db, other.id, { startsAt: "2026-05-10T09:00:00Z", staffUserId: theirStaff });
    const mine = await insertEvent(db, ws.id, { startsAt: "2026-05-10T09:00:00Z" });
    const q = "?from=2026-05-10&to=2026-05-11";
    expect(ids((await agenda(ws.key, q)).body)).toEqual([mine]);
    expect(ids((await agenda(ws.key, `${q}&staffId=${theirStaff}`)).body)).toEqual([]);
  });
});

describe("pages", () => {
  test("limit cuts the list and Link leads to the rest, as an absolute URL keeping the filters and pinning the window", async () => {
    const ws = await h.workspace();
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push(await insertEvent(db, ws.id, { startsAt: `2026-05-10T0${i + 1}:00:00Z`, kind: "viewing" }));
    await insertEvent(db, ws.id, { startsAt: "2026-05-10T09:30:00Z", kind: "inspection" });
    const first = await agenda(ws.key, "?from=2026-05-10&to=2026-05-11&kind=viewing&limit=3");
    expect(ids(first.body)).toEqual(made.slice(0, 3));
    const link = first.headers.get("link")!;
    const url = new URL(/^<([^>]+)>; rel="next"$/.exec(link)![1]!);
    expect(url.origin + url.pathname).toBe("http://localhost/calendar/agenda");
    expect(url.searchParams.get("kind")).toBe("viewing");
    expect(url.searchParams.get("limit")).toBe("3");
    expect(url.searchParams.get("from")).toBe("2026-05-09T23:00:00.000Z");
    expect(url.searchParams.get("to")).toBe("2026-05-10T23:00:00.000Z");
    expect(url.searchParams.get("cursor")).toMatch(/^[A-Za-z0-9_-]+$/);
    const all = await walk(ws.key, "?from=2026-05-10&to=2026-05-11&kind=viewing&limit=3");
    expect(all.seen).toEqual(made);
    expect(all.pages).toBe(3);
  });

  test("a page that ends exactly at the last event has no Link", async () => {
    const ws = await h.workspace();
    for (let i = 0; i < 4; i++) await insertEvent(db, ws.id, { startsAt: `2026-05-10T0${i + 1}:00:00Z` });
    const all = await walk(ws.key, "?from=2026-05-10&to=2026-05-11&limit=2");
    expect(all.pages).toBe(2);
    expect(all.seen).toHaveLength(4);
  });

  test("following the links visits every event exactly once while events are added between pages", async () => {
    const ws = await h.workspace();
    const original = new Set<string>();
    // 60 events, some sharing a start (the order then falls back to id), some already running at `from`.
    for (let i = 0; i < 60; i++) {
      const startsAt = at(Date.parse("2026-05-10T00:00:00Z") + Math.floor(i / 3) * 3600_000);
      original.add(await insertEvent(db, ws.id, { startsAt }));
    }
    original.add(await insertEvent(db, ws.id, { startsAt: "2026-05-08T00:00:00Z", endsAt: "2026-05-12T00:00:00Z" }));
    const added = new Set<string>();
    const { seen } = await walk(ws.key, "?from=2026-05-10T00:00:00Z&to=2026-05-13T00:00:00Z&limit=7", async (page) => {
      // one event far behind the cursor, one at the very start, one far ahead, one running at `from`
      added.add(await insertEvent(db, ws.id, { startsAt: "2026-05-10T00:00:00Z" }));
      added.add(await insertEvent(db, ws.id, { startsAt: "2026-05-09T23:00:00Z", endsAt: "2026-05-10T02:00:00Z" }));
      added.add(await insertEvent(db, ws.id, { startsAt: at(Date.parse("2026-05-11T12:00:00Z") + page * 60_000) }));
    });
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of original) expect(seen.filter((s) => s === id)).toHaveLength(1);
    for (const id of seen) expect(original.has(id) || added.has(id)).toBe(true);
    // the events added ahead of the position reached are listed too
    expect(seen.filter((s) => added.has(s)).length).toBeGreaterThan(0);
  });

  test("a cursor keeps microsecond order: events a fraction of a millisecond apart are each listed once", async () => {
    const ws = await h.workspace();
    const made: string[] = [];
    for (const [id, startsAt] of [
      ["z1", "2026-05-10T09:00:00.000100Z"],
      ["a2", "2026-05-10T09:00:00.000200Z"],
      ["m3", "2026-05-10T09:00:00.000900Z"],
    ] as const) {
      made.push(await insertEvent(db, ws.id, { id, startsAt }));
    }
    const { seen, pages } = await walk(ws.key, "?from=2026-05-10&to=2026-05-11&limit=1");
    expect(seen).toEqual(made);
    expect(pages).toBe(3);
  });
});

describe("OpenAPI", () => {
  test("the agenda declares every query parameter it accepts and the Link header", async () => {
    const doc = inlineRefs((await h.request("GET", "/openapi.json")).body);
    const op = doc.paths["/calendar/agenda"].get;
    expect(op.operationId).toBe("calendar.agenda");
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual([
      "from",
      "to",
      "staffId",
      "propertyId",
      "contactId",
      "kind",
      "includeCancelled",
      "limit",
      "cursor",
    ]);
    expect(op.parameters.every((p: { in: string; required: boolean }) => p.in === "query" && !p.required)).toBe(true);
    expect(op.responses["200"].headers.Link.description).toContain('rel="next"');
    const event = op.responses["200"].content["application/json"].schema.items;
    expect(event.additionalProperties).toBe(false);
    expect(event.properties.staffId.anyOf[0].description).toContain("Staff are users");
  });
});
