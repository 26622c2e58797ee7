/** A page of SMS threads is one statement, read from indexes, whatever the filters. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { measurePage } from "../support/statements.ts";
import { insertThread } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const tom = await h.rows(ws).contact({ name: "Tom" });
for (let i = 0; i < 30; i++) {
  await insertThread(h.database.db, ws.id, {
    lastMessageAt: i % 4 === 0 ? null : `2026-05-01T10:${String(i).padStart(2, "0")}:00Z`,
    contactId: i % 2 ? tom : null,
    stopped: i % 3 === 0,
  });
}

describe("one indexed statement per page", () => {
  test.each([
    ["all threads", "?limit=4"],
    ["a contact's threads", `?limit=2&contactId=${tom}`],
    ["stopped threads", "?limit=2&stopped=true"],
  ])(
    "%s: a first and a following page cost one statement each after the key check, reading only indexes",
    async (_name, query) => {
      const first = await measurePage(h, ws.key, `http://localhost/telephony/sms/threads${query}`, "sms_threads");
      const next = await measurePage(h, ws.key, /^<([^>]+)>/.exec(first.link!)![1]!, "sms_threads");
      for (const page of [first, next]) {
        expect(page.scans.filter((s) => s.endsWith("on sms_threads"))).toHaveLength(2);
        expect(page.scans.filter((s) => s.startsWith("Seq Scan"))).toEqual([]);
      }
    },
  );
});
