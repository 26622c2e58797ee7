/**
 * The contractor's photos: a visit with no access needs at least one (the evidence of what was tried), any visit
 * takes up to 3, each checked by its bytes; they are kept with the repair in the visit's transaction, listed for the
 * agency, and shown on the order's page behind its own link only.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { londonToday } from "../../src/core/dates.ts";
import { harness } from "../support/harness.ts";
import { contractorCalls, contractorWorld, deliverToOutbox, sameSite } from "./contractor_fixtures.ts";
import { tinyPng } from "./photo_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const { app, page, post } = contractorCalls(ctx);
const window = { date: londonToday(Date.now() + 86_400_000), from: "09:00", to: "11:30" };

/** An order accepted and scheduled through its link, ready for its visit. */
async function scheduled() {
  const w = await contractorWorld(h);
  const order = await w.raise({ purpose: "make_safe" });
  const token = await deliverToOutbox(ctx, w.world.ws.id, order.id);
  const read = async () =>
    expectStatus(await h.request("GET", `/maintenance-pro/works-orders/${order.id}`, { key: w.world.ws.key }), 200);
  const visit = async (fields: Record<string, string>, photos: Uint8Array[]) =>
    post(token, { revision: String((await read()).revision), action: "visit", ...fields }, sameSite, photos);
  expect((await post(token, { revision: "1", action: "accept" })).status).toBe(303);
  expect((await post(token, { revision: "2", action: "schedule", ...window })).status).toBe(303);
  const photos = () =>
    h.request("GET", `/maintenance-pro/repairs/${w.repair.id}/photos`, { key: w.world.ws.key }).then((r) => r.body);
  const photo = (path: string) => app.handle(new Request(`http://localhost/contractor/${token}/photos/${path}`));
  return { ...w, order, token, read, visit, photos, photo };
}

const noAccess = { outcome: "no_access", note: "Knocked and phoned twice" };

describe("a visit's photos", () => {
  test("no access without a photo, with a file that is no image, or with 4 photos is refused and changes nothing", async () => {
    const o = await scheduled();
    const cases: [Uint8Array[], string][] = [
      [[], "Please add at least one photo of what you tried when you could not get in."],
      [[new TextEncoder().encode("<script>alert(1)</script>")], "Photo 1 is not a JPEG or PNG image."],
      [[tinyPng(), tinyPng(), tinyPng(), tinyPng()], "Please send at most 3 photos."],
    ];
    for (const [files, problem] of cases) {
      const res = await o.visit(noAccess, files);
      expect([res.status, res.text.includes(problem)]).toEqual([400, true]);
    }
    expect(await o.read()).toMatchObject({ status: "scheduled", revision: 3 });
    expect(await o.photos()).toEqual([]);
    expect(await db`select 1 from repair_photos where workspace_id = ${o.world.ws.id}`).toHaveLength(0);
  });

  test("no access with photos keeps them with the repair and the order; the page shows them behind its link", async () => {
    const o = await scheduled();
    const res = await o.visit(noAccess, [tinyPng(4, 3), tinyPng(8, 6)]);
    expect(res.status).toBe(303);
    const listed = await o.photos();
    expect(
      listed.map((p: { width: number; source: string; worksOrderId: string }) => [p.width, p.source, p.worksOrderId]),
    ).toEqual([
      [4, "contractor", o.order.id],
      [8, "contractor", o.order.id],
    ]);
    const [entry] = await db<{ detail: { photoIds: string[] } }[]>`
      select detail from activity_log
      where workspace_id = ${o.world.ws.id} and action = 'maintenance-pro.works_order_no_access'`;
    expect(entry!.detail.photoIds).toEqual(listed.map((p: { id: string }) => p.id));

    const shown = await page(o.token);
    for (const p of listed) expect(shown.text).toContain(`src="/contractor/${o.token}/photos/${p.id}"`);
    expect(shown.headers.get("content-security-policy")).toContain("img-src 'self'");
    const bytes = await o.photo(listed[0].id);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("image/png");
    expect(bytes.headers.get("x-content-type-options")).toBe("nosniff");
    expect(bytes.headers.get("cache-control")).toBe("private, no-store");
    expect(Buffer.from(await bytes.arrayBuffer()).equals(Buffer.from(tinyPng(4, 3)))).toBe(true);
    expect((await o.photo("not-a-photo")).status).toBe(404);
    expect((await o.photo("..%2F..%2Fetc")).status).toBe(404);

    // Another order's link, of this workspace or another, cannot open them.
    const other = await scheduled();
    const sameWorkspace = await contractorWorld(h, o.world.ws);
    const sibling = await sameWorkspace.raise({ purpose: "repair" });
    const siblingToken = await deliverToOutbox(ctx, o.world.ws.id, sibling.id);
    for (const token of [other.token, siblingToken]) {
      const res = await app.handle(new Request(`http://localhost/contractor/${token}/photos/${listed[0].id}`));
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toStartWith("text/html");
    }
  });

  test("a post to a link that opens nothing, or from another site, is refused before its body is read", async () => {
    const o = await scheduled();
    const huge = new Uint8Array(20 * 1024 * 1024); // over the form's limit: read, it would be 413
    const madeUp = await app.handle(
      new Request(`http://localhost/contractor/${Buffer.alloc(32, 7).toString("base64url")}`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x", ...sameSite },
        body: huge,
      }),
    );
    expect(madeUp.status).toBe(404);
    const crossSite = await app.handle(
      new Request(`http://localhost/contractor/${o.token}`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x", "sec-fetch-site": "cross-site" },
        body: huge,
      }),
    );
    expect(crossSite.status).toBe(403);
    const sameLink = await app.handle(
      new Request(`http://localhost/contractor/${o.token}`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x", ...sameSite },
        body: huge,
      }),
    );
    expect(sameLink.status).toBe(413);
  });

  test("completed takes photos too, and none is needed", async () => {
    const o = await scheduled();
    expect((await o.visit({ outcome: "completed", note: "Made safe" }, [])).status).toBe(303);
    expect(await o.photos()).toEqual([]);
    const p = await scheduled();
    expect((await p.visit({ outcome: "completed", note: "Made safe" }, [tinyPng(5, 5)])).status).toBe(303);
    expect((await p.photos()).map((x: { height: number }) => x.height)).toEqual([5]);
  });

  test("photos of a visit that writes nothing else on the repair are its write: listed, revision up by one", async () => {
    const o = await scheduled();
    const repair = async () =>
      expectStatus(await h.request("GET", `/maintenance-pro/repairs/${o.repair.id}`, { key: o.world.ws.key }), 200);
    const before = await repair();
    // Making safe records nothing on the repair when attended: only the photo changes it.
    expect((await o.visit({ outcome: "attended", note: "Isolated the water" }, [tinyPng(7, 7)])).status).toBe(303);
    const after = await repair();
    const [listed] = await o.photos();
    expect({ revision: after.revision, milestones: after.milestones, photos: after.photos }).toEqual({
      revision: before.revision + 1,
      milestones: before.milestones,
      photos: [{ id: listed.id, contentType: "image/png", bytes: listed.size, uploadedAt: listed.createdAt }],
    });
    expect(after.updatedAt > before.updatedAt).toBe(true);
  });
});
