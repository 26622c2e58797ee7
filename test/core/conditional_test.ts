/**
 * Conditional reads: the stored handover row, block profiles, hazard settings and a key set's reports carry a
 * strong ETag; If-None-Match with it answers 304 with no body, spending the budget like any read; a change, or a
 * key that sees less, gives another tag.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import { entityTag, noneMatchHits } from "../../src/core/conditional.ts";
import { allScopes } from "../../src/core/groups.ts";
import { operations } from "../../src/operations.ts";
import { Seed } from "../handovers/fixtures.ts";
import { addBlock } from "../compliance/fixtures.ts";
import { harness } from "../support/harness.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const seed = new Seed(db, ws.id);
const unitId = await seed.unit({ meters: ["gas"] });
const tenancyId = await seed.tenancy({ unitId, id: "ten-etag-1" });
const keySetId = await seed.keySet({ unitId, status: "checked_out", holderType: "tenant", tenancyId });
const property = await h.rows(ws).property({ facts: { fireAlarm: "yes" } });
await addBlock(db, ws, property, { id: "etag-block", facts: { communalWater: "no" } });

const reads = [
  `/handovers/tenancies/${tenancyId}`,
  "/compliance/block-profiles",
  "/maintenance-pro/hazard-settings",
  `/keys/sets/${keySetId}/reports`,
];

const get = (path: string, headers: Record<string, string> = {}, key = ws.key) =>
  h.request("GET", path, { key, headers });

describe("each conditional read", () => {
  for (const path of reads) {
    test(`${path.split("/").slice(0, 3).join("/")}: 200 with an ETag, then 304 with no body for the same content`, async () => {
      const first = await get(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
      expect(etag).toBe(entityTag(first.text));
      const again = await get(path, { "if-none-match": etag });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      const other = await get(path, { "if-none-match": '"nope-1"' });
      expect(other.status).toBe(200);
      expect(other.text).toBe(first.text);
    });
  }

  test("exactly the four reads are conditional; no write is", () => {
    const conditional = operations.filter((op) => op.conditional).map((op) => op.id);
    expect(conditional.sort()).toEqual(
      ["compliance.blockProfiles", "handovers.forTenancy", "keys.setReports", "maintenancePro.hazardSettings"].sort(),
    );
  });
});

describe("what changes the tag", () => {
  test("a change to the content answers 200 with a new tag", async () => {
    const path = "/maintenance-pro/hazard-settings";
    const before = await get(path);
    const put = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime: "social" } });
    expect(put.status).toBe(200);
    const after = await get(path, { "if-none-match": before.headers.get("etag")! });
    expect(after.status).toBe(200);
    expect(after.body.regime).toBe("social");
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });

  test("a key that may not see key sets gets another tag for the same handover row (and a 200 with the first)", async () => {
    const path = `/handovers/tenancies/${tenancyId}`;
    const full = await get(path);
    const narrow = await h.key(
      ws,
      allScopes.filter((s) => s !== "keys:read"),
    );
    const restricted = await get(path, { "if-none-match": full.headers.get("etag")! }, narrow);
    expect(restricted.status).toBe(200);
    expect(restricted.headers.get("etag")).not.toBe(full.headers.get("etag"));
  });

  test("a refusal carries no tag and never answers 304", async () => {
    const res = await get("/handovers/tenancies/ten-unknown", { "if-none-match": "*" });
    expect(res.status).toBe(404);
    expect(res.headers.get("etag")).toBeNull();
  });
});

describe("the budget", () => {
  test("a 304 spends a token like any read, and past the budget is 429", async () => {
    const key = await h.key(ws, [...allScopes], { budgetPerMinute: 3 });
    const path = "/maintenance-pro/hazard-settings";
    const first = await get(path, {}, key);
    const etag = first.headers.get("etag")!;
    const second = await get(path, { "if-none-match": etag }, key);
    const third = await get(path, { "if-none-match": etag }, key);
    expect([first.status, second.status, third.status]).toEqual([200, 304, 304]);
    expect(third.headers.get("ratelimit")).toStartWith('"default";r=0;');
    expect((await get(path, { "if-none-match": etag }, key)).status).toBe(429);
  });
});

describe("If-None-Match", () => {
  test("weak comparison, lists and * (RFC 9110 §13.1.2)", () => {
    const etag = entityTag("body");
    expect(noneMatchHits(etag, etag)).toBe(true);
    expect(noneMatchHits(`W/${etag}`, etag)).toBe(true);
    expect(noneMatchHits(`"a", ${etag}`, etag)).toBe(true);
    expect(noneMatchHits("*", etag)).toBe(true);
    expect(noneMatchHits('"a", "b"', etag)).toBe(false);
    expect(noneMatchHits(null, etag)).toBe(false);
    expect(entityTag("body")).not.toBe(entityTag("bodY"));
  });
});

describe("on the real server", () => {
  const served = buildApp(h.ctx);
  served.listen({ port: 0, hostname: "127.0.0.1" });
  afterAll(() => served.stop(true));

  test("a 304 goes out with no body and its ETag", async () => {
    const url = `http://127.0.0.1:${served.server!.port}/compliance/block-profiles`;
    const first = await fetch(url, { headers: { "x-api-key": ws.key } });
    const etag = first.headers.get("etag")!;
    await first.text();
    const again = await fetch(url, { headers: { "x-api-key": ws.key, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  });
});
