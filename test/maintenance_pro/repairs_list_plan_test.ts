/**
 * The due list's page statement is planned once per connection: after Postgres's five custom plans it runs the
 * cached generic plan. With the page size bound as a parameter the generic plan could not count on it, and Postgres
 * planned every page afresh (src/maintenance_pro/queries.ts, pageSize).
 */
import { describe, expect, test } from "bun:test";
import { throughPgBouncer } from "../support/database.ts";
import { harness } from "../support/harness.ts";
import { countingClient, preparedPlans } from "../support/statements.ts";
import { buildApp } from "../../src/app.ts";
import { expectStatus, fromNow, repairCalls, repairWorld } from "./repair_fixtures.ts";

const h = await harness();
const world = await repairWorld(h);
const call = repairCalls(h, world);
const hour = 3_600_000;
let last: { id: string } | undefined;
for (let i = 0; i < 6; i++) {
  last = expectStatus(
    await call.report({ awareAt: fromNow(-i * hour), hazard: "emergency", hhsrsHazard: "fire" }),
    201,
  );
}
// A desk with 20,000 open repairs, analysed: with the page size bound, the generic plan costs the whole range, and
// Postgres planned every page again.
await h.database.db`
  insert into repairs
  select (jsonb_populate_record(null::repairs, to_jsonb(r) ||
          jsonb_build_object('id', r.id || '-' || i, 'reference', r.reference || '-' || i))).*
  from repairs r, generate_series(1, 20000) i
  where r.workspace_id = ${world.ws.id} and r.id = ${last!.id}`;
await h.database.db`analyze repairs`;

// Behind a transaction pooler the service prepares no named statements, so there is no cached plan to look at.
describe.skipIf(throughPgBouncer)("the due list's page statement is planned once", () => {
  test("after Postgres's five custom plans, every page runs the cached generic plan (no planning per page)", async () => {
    const { db } = await countingClient(h.database.url);
    const app = buildApp({ ...h.ctx, db });
    try {
      for (let i = 0; i < 12; i++) {
        const dueBefore = new Date(Date.now() + (30 + i) * hour).toISOString();
        const url = `http://localhost/maintenance-pro/repairs?clock=open&dueBefore=${dueBefore}&limit=2`;
        const res = await app.handle(new Request(url, { headers: { "x-api-key": world.ws.key } }));
        expect(res.status).toBe(200);
        expect(((await res.json()) as unknown[]).length).toBe(2);
      }
      expect(await preparedPlans(db, "%from repairs r%open_due_at%")).toEqual([{ genericPlans: 7, customPlans: 5 }]);
    } finally {
      await db.end();
    }
  });
});
