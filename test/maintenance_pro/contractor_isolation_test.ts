/**
 * A contractor's link reaches its own works order and nothing else: every contractor route, with every form, called
 * with another order's token (same workspace, another workspace) or a made-up one, and with fields naming another
 * order or its key set, shows and changes only the token's own order and key set (or nothing at all).
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ulid } from "ulid";
import { londonToday } from "../../src/core/dates.ts";
import { contractorRoutes } from "../../src/maintenance_pro/contractor_routes.ts";
import { harness } from "../support/harness.ts";
import { contractorCalls, contractorWorld, deliverToOutbox, sameSite } from "./contractor_fixtures.ts";
import { addPhotos } from "./photo_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const { app } = contractorCalls(ctx);

const tomorrow = londonToday(Date.now() + 86_400_000);

/** Every form a POST route takes, filled in validly. */
const forms: Record<string, string>[] = [
  { action: "accept" },
  { action: "decline", reason: "Not my trade" },
  { action: "schedule", date: tomorrow, from: "09:00", to: "10:00" },
  { action: "visit", outcome: "attended", note: "On site" },
  { action: "visit", outcome: "no_access", note: "No answer" },
  { action: "visit", outcome: "completed", note: "Done" },
  { action: "key_report", note: "The key does not turn" },
];

/** A key set of the world's unit, in the office: the raise of an order naming it. */
async function keySetOf(w: Awaited<ReturnType<typeof contractorWorld>>): Promise<string> {
  const id = ulid();
  await db`
    insert into key_sets (workspace_id, id, reference, label, unit_id, status, holder_type)
    values (${w.world.ws.id}, ${id}, ${`K-${id.slice(-6)}`}, 'Front door', ${w.world.unitId}, 'in_office', 'office')`;
  return id;
}

/**
 * The state of every order, repair, key set and key report of the database, to compare before and after (a key
 * report's status is the set it is about).
 */
const state = () =>
  db`
    select 'order' as kind, id, status, revision from works_orders
    union all select 'repair', id, status, revision from repairs
    union all select 'key_set', id, status || ' ' || holder_type, 1 from key_sets
    union all select 'key_report', id, key_set_id, 1 from key_reports order by kind, id`;

/** Calls every contractor route with `token`, each POST with each form (fields naming `decoy` added). */
async function callEveryRoute(
  token: string,
  decoy: { id: string; workspaceId: string; revision: number; photoId: string; keySetId: string },
) {
  const answers: { route: string; status: number; text: string }[] = [];
  for (const route of contractorRoutes) {
    const path = route.path.replace(":token", token).replace(":photoId", decoy.photoId);
    const bodies = route.method === "GET" ? [undefined] : forms;
    for (const form of bodies) {
      const body =
        form &&
        new URLSearchParams({
          ...form,
          revision: String(decoy.revision),
          id: decoy.id,
          worksOrderId: decoy.id,
          workspaceId: decoy.workspaceId,
          keySetId: decoy.keySetId,
        }).toString();
      const res = await app.handle(
        new Request(`http://localhost${path}?worksOrderId=${decoy.id}`, {
          method: route.method,
          headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded", ...sameSite },
          body,
        }),
      );
      answers.push({
        route: `${route.method} ${route.path} ${form?.action ?? ""}`,
        status: res.status,
        text: await res.text(),
      });
    }
  }
  return answers;
}

test("another order's token, another workspace's, or a made-up one never reach the order", async () => {
  const ours = await contractorWorld(h);
  const targetKeys = await keySetOf(ours);
  const target = await ours.raise({ instructions: "The order under attack", keySetId: targetKeys });
  const targetToken = await deliverToOutbox(ctx, ours.world.ws.id, target.id);
  const siblingKeys = await keySetOf(ours);
  const sibling = await ours.raise({ instructions: "Another order of the same workspace", keySetId: siblingKeys });
  const siblingToken = await deliverToOutbox(ctx, ours.world.ws.id, sibling.id);
  const theirs = await contractorWorld(h);
  const foreignKeys = await keySetOf(theirs);
  const foreign = await theirs.raise({ instructions: "An order of another workspace", keySetId: foreignKeys });
  const foreignToken = await deliverToOutbox(ctx, theirs.world.ws.id, foreign.id);
  // A photo of the target's repair: a route naming it through another link finds nothing.
  const [photo] = await addPhotos(db, { workspaceId: ours.world.ws.id, repairId: ours.repair.id }, [[6, 4]]);
  const decoy = {
    id: target.id,
    workspaceId: ours.world.ws.id,
    revision: target.revision,
    photoId: photo!.id,
    keySetId: targetKeys,
  };
  const before = await state();
  const targetRow = () => state().then((rows) => rows.find((r) => r.id === target.id));

  // A made-up token (well formed, and not) finds nothing on any route and changes nothing anywhere.
  for (const token of [Buffer.alloc(32, 1).toString("base64url"), "x", `${targetToken}x`, targetToken.slice(1)]) {
    for (const answer of await callEveryRoute(token, decoy)) {
      expect([answer.route, answer.status]).toEqual([answer.route, 404]);
      expect(answer.text).not.toContain(target.reference);
    }
  }
  expect(await state()).toEqual(before);

  // Another order's token (same workspace, another workspace): every answer is about that order only.
  for (const [token, own] of [
    [foreignToken, foreign],
    [siblingToken, sibling],
  ] as const) {
    for (const answer of await callEveryRoute(token, decoy)) {
      expect(answer.text).not.toContain("The order under attack");
      const isPage = !answer.route.includes(":photoId"); // a photo's answer is its bytes (checked below)
      if (isPage && (answer.status === 200 || answer.status === 409 || answer.status === 400))
        expect(answer.text).toContain(`Works order ${own.reference}`);
    }
    expect(await targetRow()).toEqual(before.find((r) => r.id === target.id));
    if (token === foreignToken) {
      // The other workspace's link moved its own order and repair only.
      const changed = (await state()).filter(
        (r) => JSON.stringify(before.find((b) => b.id === r.id)) !== JSON.stringify(r),
      );
      expect(changed.map((r) => r.id)).toContain(foreign.id);
      // Its key report is about its own key set.
      expect(changed.filter((r) => r.kind === "key_report").map((r) => r.status)).toEqual([foreignKeys]);
      for (const r of changed.filter((c) => c.kind !== "key_report"))
        expect([foreign.id, theirs.repair.id]).toContain(r.id);
    }
  }
  // The sibling was written through its own link only (it moved), the target never.
  const after = await state();
  expect(after.find((r) => r.id === target.id)).toEqual(before.find((r) => r.id === target.id));
  expect(after.find((r) => r.id === sibling.id)!.revision).toBeGreaterThan(1);
  // Key reports were made through the sibling's and the foreign link only, each about its own order's key set.
  const reported = after.filter((r) => r.kind === "key_report").map((r) => r.status);
  expect(reported.sort()).toEqual([siblingKeys, foreignKeys].sort());
  expect(reported).not.toContain(targetKeys);
  // A photo of the target's repair: another workspace's link finds none; a link to another order of the same repair
  // shows it, as that order's page does.
  const photoBy = (token: string) =>
    app.handle(new Request(`http://localhost/contractor/${token}/photos/${photo!.id}`));
  expect((await photoBy(foreignToken)).status).toBe(404);
  expect((await photoBy(siblingToken)).status).toBe(200);
  expect((await photoBy(targetToken)).status).toBe(200);
  // The target's own link still works.
  const own = await app.handle(new Request(`http://localhost/contractor/${targetToken}`));
  expect(own.status).toBe(200);
  expect(await own.text()).toContain("The order under attack");
});
