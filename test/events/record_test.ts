import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { eventType } from "../../src/events/event_type.ts";
import { recordEvent } from "../../src/events/record.ts";
import { harness } from "../support/harness.ts";

const h = await harness();
const ws = await h.workspace();
const noted = eventType({
  name: "test.noted",
  subjectKind: "note",
  data: Type.Object({ text: Type.String() }),
  description: "A test event.",
});

async function eventsOf(subjectId: string) {
  const rows = await h.database.db<
    { type: string; subjectKind: string; data: unknown; actorKind: string; actorId: string | null }[]
  >`
    select type, subject_kind, data, actor_kind, actor_id from events
    where workspace_id = ${ws.id} and subject_id = ${subjectId}`;
  return [...rows];
}

describe("recording an event", () => {
  test("an event recorded in a transaction that commits is there with its type, subject, data and actor", async () => {
    await h.database.db.begin((tx) =>
      recordEvent(tx, noted, {
        workspaceId: ws.id,
        subjectId: "n-1",
        data: { text: "hello" },
        requestId: "req-1",
        actor: { kind: "key", id: ws.keyId },
      }),
    );
    expect(await eventsOf("n-1")).toEqual([
      { type: "test.noted", subjectKind: "note", data: { text: "hello" }, actorKind: "key", actorId: ws.keyId },
    ]);
  });

  test("an event recorded in a transaction that rolls back is not there", async () => {
    await expect(
      h.database.db.begin(async (tx) => {
        await recordEvent(tx, noted, {
          workspaceId: ws.id,
          subjectId: "n-2",
          data: { text: "lost" },
          requestId: null,
          actor: { kind: "cli", id: null },
        });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await eventsOf("n-2")).toEqual([]);
  });

  test("events carry their transaction's id, so two transactions' events never interleave in the feed's order", async () => {
    const record = (subjectId: string) =>
      h.database.db.begin(async (tx) => {
        for (let i = 0; i < 3; i++) {
          await recordEvent(tx, noted, {
            workspaceId: ws.id,
            subjectId,
            data: { text: String(i) },
            requestId: null,
            actor: { kind: "worker", id: "test" },
          });
        }
      });
    await Promise.all([record("n-3"), record("n-4")]);
    const rows = await h.database.db<{ subjectId: string }[]>`
      select subject_id from events where workspace_id = ${ws.id} and subject_id in ('n-3', 'n-4') order by tx_id, id`;
    const order = rows.map((r) => r.subjectId);
    expect([order.slice(0, 3), order.slice(3)].map((part) => new Set(part).size)).toEqual([1, 1]);
  });

  test("one transaction's events are listed in the order they were recorded, even within one millisecond", async () => {
    const texts = Array.from({ length: 50 }, (_, i) => String(i));
    await h.database.db.begin(async (tx) => {
      for (const text of texts) {
        await recordEvent(tx, noted, {
          workspaceId: ws.id,
          subjectId: "n-5",
          data: { text },
          requestId: null,
          actor: { kind: "worker", id: "test" },
        });
      }
    });
    const rows = await h.database.db<{ text: string }[]>`
      select data->>'text' as text from events where workspace_id = ${ws.id} and subject_id = 'n-5' order by tx_id, id`;
    expect(rows.map((r) => r.text)).toEqual(texts);
  });
});
