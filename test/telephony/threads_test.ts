/** GET /telephony/sms/threads. */
import { describe, expect, test } from "bun:test";
import { harness, type TestResponse } from "../support/harness.ts";
import { insertThread } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

const list = (key: string, query = "") => h.request("GET", `/telephony/sms/threads${query}`, { key });
const ids = (body: { id: string }[]) => body.map((t) => t.id);

/** Follows the Link headers to the last page; `between` runs before each next page. */
async function walk(key: string, query: string, between: () => Promise<void> = async () => {}) {
  const seen: string[] = [];
  let path: string | null = `/telephony/sms/threads${query}`;
  let pages = 0;
  while (path) {
    const res: TestResponse = await h.request("GET", path, { key });
    expect(res.status).toBe(200);
    seen.push(...ids(res.body));
    pages += 1;
    const link: string | null = res.headers.get("link");
    if (!link) break;
    const next: URL = new URL(/^<(http:\/\/localhost\/telephony\/sms\/threads\?[^>]+)>; rel="next"$/.exec(link)![1]!);
    path = `${next.pathname}${next.search}`;
    await between();
  }
  return { seen, pages };
}

describe("the thread list", () => {
  test("threads come by lastMessageAt descending then id descending, those without messages last, every field present", async () => {
    const ws = await h.workspace();
    const tom = await h.rows(ws).contact({ name: "Tom Baker" });
    const older = await insertThread(db, ws.id, {
      id: "t-older",
      lastMessageAt: "2026-05-01T10:00:00Z",
      preview: "See you then",
    });
    const tieA = await insertThread(db, ws.id, { id: "t-a", lastMessageAt: "2026-05-02T10:00:00Z" });
    const tieB = await insertThread(db, ws.id, {
      id: "t-b",
      lastMessageAt: "2026-05-02T10:00:00Z",
      contactId: tom,
      lastInboundAt: "2026-05-02T09:59:00Z",
      preview: "Is Tuesday ok?",
    });
    const emptyA = await insertThread(db, ws.id, { id: "t-empty-a" });
    const emptyB = await insertThread(db, ws.id, { id: "t-empty-b" });
    const res = await list(ws.key);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([tieB, tieA, older, emptyB, emptyA]);
    expect(res.body[0]).toEqual({
      id: "t-b",
      localNumber: "+447700900001",
      address: "+447700900123",
      contact: { id: tom, name: "Tom Baker" },
      revision: 1,
      lastMessageAt: "2026-05-02T10:00:00.000Z",
      lastInboundAt: "2026-05-02T09:59:00.000Z",
      preview: "Is Tuesday ok?",
      stopped: false,
    });
    expect(res.body[3]).toMatchObject({ contact: null, lastMessageAt: null, lastInboundAt: null, preview: null });
    expect(res.headers.get("link")).toBeNull();
  });

  test("contactId and stopped narrow the list", async () => {
    const ws = await h.workspace();
    const tom = await h.rows(ws).contact({ name: "Tom" });
    const a = await insertThread(db, ws.id, { lastMessageAt: "2026-05-01T10:00:00Z", contactId: tom });
    const b = await insertThread(db, ws.id, { lastMessageAt: "2026-05-02T10:00:00Z", contactId: tom, stopped: true });
    const c = await insertThread(db, ws.id, { lastMessageAt: "2026-05-03T10:00:00Z" });
    const d = await insertThread(db, ws.id, { contactId: tom });
    expect(ids((await list(ws.key, `?contactId=${tom}`)).body)).toEqual([b, a, d]);
    expect(ids((await list(ws.key, "?stopped=true")).body)).toEqual([b]);
    expect(ids((await list(ws.key, "?stopped=false")).body)).toEqual([c, a, d]);
    expect(ids((await list(ws.key, `?stopped=false&contactId=${tom}`)).body)).toEqual([a, d]);
  });

  test.each([
    ["stopped that is not a boolean", "?stopped=perhaps", "/query/stopped"],
    ["a limit over 200", "?limit=201", "/query/limit"],
    ["an unknown parameter", "?since=2026-01-01", "/query/since"],
    ["a made-up cursor", "?cursor=WyJ4Il0", "/query/cursor"],
  ])("%s is RequestInvalid", async (_name, query, path) => {
    const ws = await h.workspace();
    const res = await list(ws.key, query);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  test("another workspace's threads are never listed", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const theirContact = await h.rows(other).contact({ name: "Theirs" });
    await insertThread(db, other.id, { lastMessageAt: "2026-05-01T10:00:00Z", contactId: theirContact });
    const mine = await insertThread(db, ws.id);
    expect(ids((await list(ws.key)).body)).toEqual([mine]);
    expect(ids((await list(ws.key, `?contactId=${theirContact}`)).body)).toEqual([]);
  });
});

describe("pages", () => {
  test("limit defaults to 50, and following the links lists every thread once, across those without messages", async () => {
    const ws = await h.workspace();
    const made = new Set<string>();
    for (let i = 0; i < 57; i++) {
      made.add(
        await insertThread(db, ws.id, {
          lastMessageAt:
            i % 5 === 0
              ? null
              : new Date(Date.parse("2026-05-01T00:00:00Z") + Math.floor(i / 2) * 60_000).toISOString(),
        }),
      );
    }
    const first = await list(ws.key);
    expect(first.body).toHaveLength(50);
    const link = first.headers.get("link")!;
    expect(link).toMatch(/^<http:\/\/localhost\/telephony\/sms\/threads\?cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    for (const limit of [1, 3, 12]) {
      const { seen, pages } = await walk(ws.key, `?limit=${limit}`);
      expect(seen).toHaveLength(57);
      expect(new Set(seen)).toEqual(made);
      expect(pages).toBe(Math.ceil(57 / limit));
    }
  });

  test("threads added between pages never make a listed thread appear twice", async () => {
    const ws = await h.workspace();
    const made = new Set<string>();
    for (let i = 0; i < 20; i++)
      made.add(
        await insertThread(db, ws.id, {
          lastMessageAt: i < 15 ? `2026-05-01T10:${String(i).padStart(2, "0")}:00Z` : null,
        }),
      );
    const added = new Set<string>();
    let n = 0;
    const { seen } = await walk(ws.key, "?limit=4", async () => {
      n += 1;
      added.add(await insertThread(db, ws.id, { lastMessageAt: `2026-06-01T10:${String(n).padStart(2, "0")}:00Z` })); // ahead of the position
      added.add(await insertThread(db, ws.id, { lastMessageAt: `2026-04-01T10:${String(n).padStart(2, "0")}:00Z` })); // behind it
      added.add(await insertThread(db, ws.id)); // among those without messages
    });
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of made) expect(seen).toContain(id);
    for (const id of seen) expect(made.has(id) || added.has(id)).toBe(true);
  });
});
