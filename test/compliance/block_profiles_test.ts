/** GET /compliance/block-profiles. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { addBlock, addHistory } from "./fixtures.ts";
import { Value } from "@sinclair/typebox/value";
import { BlockProfile } from "../../src/compliance/schema.ts";
import { factNames } from "../../src/compliance/facts.ts";
import { ensureDemo } from "../../src/workspace_import/demo.ts";

const h = await harness();
const db = h.database.db;
const list = (key: string, query = "") => h.request("GET", `/compliance/block-profiles${query}`, { key });
const ids = (body: { blockId: string }[]) => body.map((p) => p.blockId);

describe("which blocks are listed", () => {
  test("a block with own facts, a history entry or a revision is listed; one with nothing recorded is not", async () => {
    const ws = await h.workspace();
    const property = await h.rows(ws).property({ facts: { fireAlarm: "yes", storeyOver11m: "yes" } });
    await addBlock(db, ws, property, { id: "blank" });
    await addBlock(db, ws, property, { id: "junk-only", facts: { liftInstalled: "yes", fireAlarm: "perhaps" } });
    await addBlock(db, ws, property, { id: "own-facts", facts: { communalWater: "no" } });
    await addBlock(db, ws, property, { id: "own-unknown", facts: { fireAlarm: "unknown" } });
    const withHistory = await addBlock(db, ws, property, { id: "history-only" });
    await addHistory(db, ws, withHistory, { createdAt: "2025-03-01T10:00:00Z" });
    await addBlock(db, ws, property, { id: "revised-only", revision: 4 });
    const res = await list(ws.key);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(["history-only", "own-facts", "own-unknown", "revised-only"]);
  });

  test("a workspace without blocks gets an empty list", async () => {
    const ws = await h.workspace();
    const res = await list(ws.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe("a profile", () => {
  test("carries effective facts, own facts and their sources, the revision, policy and last change", async () => {
    const ws = await h.workspace();
    const property = await h.rows(ws).property({
      facts: {
        builtBefore2000: "yes",
        fireAlarm: "yes",
        emergencyLighting: "unknown",
      },
    });
    await addBlock(db, ws, property, {
      id: "tower",
      facts: { storeyOver11m: "yes", fireAlarm: "no" },
      revision: 3,
      policyVersion: "block-facts-2025-1",
      updatedAt: "2025-06-01T09:30:00.123456Z",
      updatedByUserId: "user-1",
    });
    const res = await list(ws.key);
    expect(res.body).toEqual([
      {
        blockId: "tower",
        facts: {
          storeyOver11m: "yes",
          builtBefore2000: "yes",
          fireAlarm: "no",
          emergencyLighting: "unknown",
          communalWater: "unknown",
        },
        revision: 3,
        policyVersion: "block-facts-2025-1",
        updatedAt: "2025-06-01T09:30:00.123Z",
        updatedByUserId: "user-1",
        ownFacts: {
          storeyOver11m: "yes",
          builtBefore2000: "unknown",
          fireAlarm: "no",
          emergencyLighting: "unknown",
          communalWater: "unknown",
        },
        factSources: {
          storeyOver11m: "own",
          builtBefore2000: "property",
          fireAlarm: "own",
          emergencyLighting: "property",
          communalWater: "default",
        },
        history: [],
      },
    ]);
  });

  test("a block never updated has null updatedAt and updatedByUserId", async () => {
    const ws = await h.workspace();
    await addBlock(db, ws, await h.rows(ws).property(), { id: "b", facts: { fireAlarm: "yes" } });
    const [profile] = (await list(ws.key)).body;
    expect(profile).toMatchObject({ updatedAt: null, updatedByUserId: null, revision: 0 });
  });

  test("history is newest first, entries at the same instant by id descending", async () => {
    const ws = await h.workspace();
    const block = await addBlock(db, ws, await h.rows(ws).property(), { id: "b" });
    await addHistory(db, ws, block, {
      id: "h-old",
      kind: "fact_set",
      detail: "fireAlarm set to yes",
      actorUserId: "u1",
      createdAt: "2024-01-01T00:00:00Z",
    });
    await addHistory(db, ws, block, {
      id: "h-new-a",
      kind: "fact_cleared",
      detail: "fireAlarm cleared",
      createdAt: "2025-01-01T00:00:00Z",
      policyVersion: "block-facts-2025-2",
    });
    await addHistory(db, ws, block, { id: "h-new-b", createdAt: "2025-01-01T00:00:00Z" });
    await addHistory(db, ws, block, { id: "h-mid", createdAt: "2024-06-01T12:00:00.5Z" });
    const [profile] = (await list(ws.key)).body;
    expect(profile.history.map((e: { id: string }) => e.id)).toEqual(["h-new-b", "h-new-a", "h-mid", "h-old"]);
    expect(profile.history[1]).toEqual({
      id: "h-new-a",
      kind: "fact_cleared",
      detail: "fireAlarm cleared",
      actorUserId: null,
      policyVersion: "block-facts-2025-2",
      createdAt: "2025-01-01T00:00:00.000Z",
    });
    expect(profile.history[3]).toMatchObject({ actorUserId: "u1", createdAt: "2024-01-01T00:00:00.000Z" });
  });

  test("a revision at the edge of the exact integer range comes back exact; beyond it cannot be stored", async () => {
    const ws = await h.workspace();
    const property = await h.rows(ws).property();
    await addBlock(db, ws, property, { id: "max", revision: 9007199254740991 });
    expect((await list(ws.key)).body[0].revision).toBe(9007199254740991);
    const error = await addBlock(db, ws, property, { id: "over", revision: 9007199254740992 }).catch((e) => e);
    expect(String(error?.message)).toContain("blocks_revision_json_safe");
  });
});

describe("ordering, filtering and isolation", () => {
  test("profiles are ordered by blockId in code-point order", async () => {
    const ws = await h.workspace();
    const property = await h.rows(ws).property();
    for (const id of ["b-10", "a_1", "B-2", "b-9", "A1", "a-1"])
      await addBlock(db, ws, property, { id, facts: { fireAlarm: "yes" } });
    expect(ids((await list(ws.key)).body)).toEqual(["A1", "B-2", "a-1", "a_1", "b-10", "b-9"]);
  });

  test("propertyId keeps that property's blocks; an unknown property gives an empty list", async () => {
    const ws = await h.workspace();
    const one = await h.rows(ws).property({ facts: { fireAlarm: "yes" } });
    const two = await h.rows(ws).property({ facts: { fireAlarm: "no" } });
    await addBlock(db, ws, one, { id: "one-a", facts: { communalWater: "yes" } });
    await addBlock(db, ws, two, { id: "two-a", facts: { communalWater: "yes" } });
    await addBlock(db, ws, one, { id: "one-b", revision: 1 });
    const filtered = await list(ws.key, `?propertyId=${one}`);
    expect(ids(filtered.body)).toEqual(["one-a", "one-b"]);
    expect(filtered.body.every((p: any) => p.facts.fireAlarm === "yes" && p.factSources.fireAlarm === "property")).toBe(
      true,
    );
    expect((await list(ws.key, "?propertyId=nope")).body).toEqual([]);
  });

  test("a malformed propertyId or an unknown query parameter is RequestInvalid", async () => {
    const ws = await h.workspace();
    for (const query of ["?propertyId=has%20space", "?propertyId=", "?sort=blockId"]) {
      const res = await list(ws.key, query);
      expect(res.status).toBe(400);
      expect(res.body._tag).toBe("RequestInvalid");
    }
  });

  test("another workspace's blocks never appear, not even through its propertyId", async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const theirProperty = await h.rows(theirs).property({ facts: { fireAlarm: "yes" } });
    await addBlock(db, theirs, theirProperty, { id: "shared-id", facts: { fireAlarm: "no" } });
    const myProperty = await h.rows(mine).property();
    await addBlock(db, mine, myProperty, { id: "shared-id", facts: { communalWater: "yes" } });
    const res = await list(mine.key);
    expect(res.body).toHaveLength(1);
    expect(res.body[0].ownFacts).toMatchObject({ fireAlarm: "unknown", communalWater: "yes" });
    expect((await list(mine.key, `?propertyId=${theirProperty}`)).body).toEqual([]);
  });

  test("any key with compliance:read lists profiles; no module is needed", async () => {
    const ws = await h.workspace({ modules: [] });
    await addBlock(db, ws, await h.rows(ws).property(), { id: "b", facts: { fireAlarm: "yes" } });
    const key = await h.key(ws, ["compliance:read"]);
    const res = await list(key);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(["b"]);
  });
});

describe("ownFacts is a fact set of strings", () => {
  test("the declared response schema refuses a null own fact, so the response check would catch one", () => {
    const profile = {
      blockId: "b",
      revision: 0,
      policyVersion: "block-facts-2025-1",
      updatedAt: null,
      updatedByUserId: null,
      history: [],
      facts: {
        storeyOver11m: "yes",
        builtBefore2000: "unknown",
        fireAlarm: "unknown",
        emergencyLighting: "unknown",
        communalWater: "unknown",
      },
      ownFacts: {
        storeyOver11m: "yes",
        builtBefore2000: "unknown",
        fireAlarm: "unknown",
        emergencyLighting: "unknown",
        communalWater: "unknown",
      },
      factSources: {
        storeyOver11m: "own",
        builtBefore2000: "default",
        fireAlarm: "default",
        emergencyLighting: "default",
        communalWater: "default",
      },
    };
    expect(Value.Check(BlockProfile, profile)).toBe(true);
    expect(Value.Check(BlockProfile, { ...profile, ownFacts: { ...profile.ownFacts, fireAlarm: null } })).toBe(false);
  });

  test("the demo workspace's profiles hold only yes, no and unknown, and factSources tells recorded from not", async () => {
    const demo = await ensureDemo(db);
    const res = await list(demo.key);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const profile of res.body) {
      for (const name of factNames) {
        expect(["yes", "no", "unknown"]).toContain(profile.ownFacts[name]);
        if (profile.factSources[name] === "own") expect(profile.ownFacts[name]).toBe(profile.facts[name]);
        else
          expect({ blockId: profile.blockId, name, own: profile.ownFacts[name] }).toEqual({
            blockId: profile.blockId,
            name,
            own: "unknown",
          });
      }
    }
  });
});
