/**
 * What a repair's writes carry with them: their event in their own transaction (a failed commit leaves nothing, not
 * even a reference taken), the handover follow-ups that read the repair, and the operator's private-sector date.
 */
import { describe, expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import { harness } from "../support/harness.ts";
import { refusedCommits } from "../events/refused_commits.ts";
import { Seed } from "../handovers/fixtures.ts";
import { expectStatus, fromNow, repairCalls, repairWorld, reportBody } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;

const commits = refusedCommits(db);

describe("each write's event is recorded in its own transaction", () => {
  test("a report whose commit fails leaves no repair, no log, no event, and takes no reference", async () => {
    const world = await repairWorld(h);
    const call = repairCalls(h, world);
    await commits.refuse("repair.reported");
    expect((await call.report()).status).toBe(500);
    expect(await db`select 1 from repairs where workspace_id = ${world.ws.id}`).toHaveLength(0);
    expect(await db`select 1 from activity_log where workspace_id = ${world.ws.id}`).toHaveLength(0);
    expect(await db`select 1 from events where workspace_id = ${world.ws.id}`).toHaveLength(0);
    await commits.allow();
    expect(expectStatus(await call.report(), 201).reference).toBe("R-1");
  });

  test("a triage, milestone, access attempt or cancel whose commit fails changes nothing", async () => {
    const world = await repairWorld(h);
    const call = repairCalls(h, world);
    const repair = expectStatus(await call.report({ awareAt: fromNow(-60_000) }), 201);
    const writes: [string, () => ReturnType<typeof call.get>][] = [
      [
        "repair.triaged",
        () => call.triage(repair.id, { expectedRevision: 1, hazard: "emergency", hhsrsHazard: "fire" }),
      ],
      [
        "repair.milestone_recorded",
        () => call.milestone(repair.id, { expectedRevision: 2, kind: "made_safe", at: fromNow(0) }),
      ],
      ["repair.access_attempt_recorded", () => call.access(repair.id, { at: fromNow(0), outcome: "granted" })],
      ["repair.cancelled", () => call.cancel(repair.id, { reason: "Duplicate" })],
    ];
    for (const [type, write] of writes) {
      const before = expectStatus(await call.get(repair.id), 200);
      await commits.refuse(type);
      expect((await write()).status).toBe(500);
      const after = expectStatus(await call.get(repair.id), 200);
      expect({ ...after, clocks: null }).toEqual({ ...before, clocks: null });
      await commits.allow();
      const done = expectStatus(await write(), 200);
      expect(done.revision).toBe(before.revision + 1);
      const [last] = await db<{ type: string; data: unknown }[]>`
        select type, data from events where workspace_id = ${world.ws.id} order by id desc limit 1`;
      expect(last).toEqual({ type, data: done });
    }
  });
});

describe("references and imports", () => {
  test("a first report during an import waits for it and numbers after its references, without a deadlock", async () => {
    const world = await repairWorld(h);
    const call = repairCalls(h, world);
    // The workspace's first report (its count's row does not exist yet) during what an import does: lock the
    // workspace row, then write repairs whose references move the count.
    const importer = await db.reserve();
    try {
      await importer`begin`;
      await importer`select 1 from workspaces where id = ${world.ws.id} for update`;
      const report = call.report();
      // The report waits for the import's lock (as the server sees it) before the import writes.
      for (const giveUp = Date.now() + 10_000; ; await Bun.sleep(10)) {
        const [row] = await db<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
        if (row!.n > 0) break;
        if (Date.now() > giveUp) throw new Error("the report never waited for the import's lock");
      }
      await importer`
        insert into repairs (workspace_id, id, reference, status, property_id)
        values (${world.ws.id}, 'imported-1', 'R-5', 'open', ${world.propertyId})`;
      await importer`commit`;
      expect(expectStatus(await report, 201).reference).toBe("R-6");
    } finally {
      importer.release();
    }
  });
});

describe("handover follow-ups read the repair the API writes", () => {
  test("a check-in finding's repair is open until the repair is completed", async () => {
    const world = await repairWorld(h);
    const call = repairCalls(h, world);
    const repair = expectStatus(await call.report({ hazard: "none" }), 201);
    await new Seed(db, world.ws.id).inspection({
      tenancyId: world.tenancyId,
      kind: "check_in",
      findings: [{ area: "Bedroom", item: "Mould", repairId: repair.id }],
    });
    const handover = async () => {
      const res = await h.request("GET", `/handovers/tenancies/${world.tenancyId}`, { key: world.ws.key });
      return expectStatus(res, 200);
    };
    const before = await handover();
    expect(before.followUps[0].repair).toEqual({ id: repair.id, reference: repair.reference, status: "triaged" });
    expect(before.outstanding.map((o: { code: string }) => o.code)).toContain("follow_ups_open");
    expectStatus(await call.milestone(repair.id, { expectedRevision: 1, kind: "completed", at: fromNow(0) }), 200);
    const after = await handover();
    expect(after.followUps[0].repair.status).toBe("completed");
    expect(after.outstanding.map((o: { code: string }) => o.code)).not.toContain("follow_ups_open");
  });
});

describe("the private rented sector's date (PRS_IN_FORCE_FROM)", () => {
  test("a private agency's clocks are statutory for awareness from 00:00 London on the date, policy before", async () => {
    const world = await repairWorld(h);
    const app = buildApp({ ...h.ctx, config: { ...h.ctx.config, prsInForceFrom: "2026-05-01" } });
    const basis = async (awareAt: string) => {
      const res = await app.handle(
        new Request("http://localhost/maintenance-pro/repairs", {
          method: "POST",
          headers: { "x-api-key": world.ws.key, "content-type": "application/json" },
          body: JSON.stringify(
            reportBody(world, { awareAt, hazard: "significant", hhsrsHazard: "damp_and_mould_growth" }),
          ),
        }),
      );
      const repair = (await res.json()) as { regime: string; clocks: { basis: string }[] };
      expect(repair.regime).toBe("private");
      return repair.clocks.map((c) => c.basis);
    };
    // 1 May 2026 00:00 BST is 30 April 23:00 UTC.
    expect(await basis("2026-04-30T23:00:00Z")).toEqual(["statutory"]);
    expect(await basis("2026-04-30T22:59:59.999Z")).toEqual(["policy"]);
  });
});
