/** A repair's photos read by the agency over REST and MCP: the list without bytes, one photo with its bytes. */
import { describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { bodyOf, connectHttp, type Handler } from "../mcp/support.ts";
import { harness } from "../support/harness.ts";
import { addPhotos, tinyPng } from "./photo_fixtures.ts";
import { expectStatus, repairCalls, repairWorld } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;

async function photoWorld() {
  const world = await repairWorld(h);
  const repair = expectStatus(await repairCalls(h, world).report({}), 201);
  const key = world.ws.key;
  return {
    world,
    repair,
    list: (repairId = repair.id, k = key) =>
      h.request("GET", `/maintenance-pro/repairs/${repairId}/photos`, { key: k }),
    get: (photoId: string, repairId = repair.id, k = key) =>
      h.request("GET", `/maintenance-pro/repairs/${repairId}/photos/${photoId}`, { key: k }),
  };
}

describe("a repair's photos", () => {
  test("the list: none, then each photo in the order it came, without bytes; one photo with its bytes", async () => {
    const { world, repair, list, get } = await photoWorld();
    expect(expectStatus(await list(), 200)).toEqual([]);
    const stored = await addPhotos(db, { workspaceId: world.ws.id, repairId: repair.id }, [
      [4, 3],
      [640, 480],
    ]);
    const listed = expectStatus(await list(), 200);
    expect(listed).toEqual(stored);
    expect(listed.map((p: { width: number; height: number }) => [p.width, p.height])).toEqual([
      [4, 3],
      [640, 480],
    ]);
    expect(listed[0]).toMatchObject({
      repairId: repair.id,
      worksOrderId: null,
      source: "tenant",
      contentType: "image/png",
      size: tinyPng(4, 3).length,
      sha256: new Bun.CryptoHasher("sha256").update(tinyPng(4, 3)).digest("hex"),
    });
    expect(JSON.stringify(listed)).not.toContain('"data"');
    // The repair lists them too, as read and as listed, in the same order.
    const shown = listed.map((p: { id: string; contentType: string; size: number; createdAt: string }) => ({
      id: p.id,
      contentType: p.contentType,
      bytes: p.size,
      uploadedAt: p.createdAt,
    }));
    const read = await h.request("GET", `/maintenance-pro/repairs/${repair.id}`, { key: world.ws.key });
    expect(expectStatus(read, 200).photos).toEqual(shown);
    const page = await h.request("GET", `/maintenance-pro/repairs?tenancyId=${repair.tenancyId}`, {
      key: world.ws.key,
    });
    const paged = expectStatus(page, 200) as { id: string; photos: unknown }[];
    expect(paged.find((r) => r.id === repair.id)?.photos).toEqual(shown);
    const one = expectStatus(await get(listed[1].id), 200);
    expect({ ...one, data: undefined }).toEqual({ ...listed[1], data: undefined });
    expect(Buffer.from(one.data as string, "base64").equals(Buffer.from(tinyPng(640, 480)))).toBe(true);
    expect(one.data).toBe(Buffer.from(tinyPng(640, 480)).toString("base64"));
  });

  test("refusals: an unknown repair, another repair's photo, another workspace's repair or photo", async () => {
    const a = await photoWorld();
    const b = await photoWorld();
    const [photoOfB] = await addPhotos(db, { workspaceId: b.world.ws.id, repairId: b.repair.id }, [[2, 2]]);
    expect((await a.list(ulid())).body).toEqual({ _tag: "RepairNotFound", repairId: expect.any(String) });
    expect((await a.list(b.repair.id)).status).toBe(404);
    const otherRepair = expectStatus(await repairCalls(h, a.world).report({}), 201);
    const [photoOfA] = await addPhotos(db, { workspaceId: a.world.ws.id, repairId: a.repair.id }, [[2, 2]]);
    const notFound = { _tag: "PhotoNotFound", photoId: photoOfA!.id };
    const res = await a.get(photoOfA!.id, otherRepair.id);
    expect([res.status, res.body]).toEqual([404, notFound]);
    expect((await a.get(photoOfB!.id, b.repair.id)).body).toEqual({ _tag: "PhotoNotFound", photoId: photoOfB!.id });
    expectStatus(await a.get(photoOfA!.id), 200);
  });

  test("as MCP tools: the same answers", async () => {
    const { world, repair, list, get } = await photoWorld();
    const [photo] = await addPhotos(db, { workspaceId: world.ws.id, repairId: repair.id }, [[3, 5]]);
    const session = await connectHttp(h.app as unknown as Handler, { key: world.ws.key });
    try {
      const listed = bodyOf(
        await session.client.callTool({ name: "maintenancePro_repairPhotos", arguments: { id: repair.id } }),
      );
      expect(listed).toEqual(expectStatus(await list(), 200));
      const one = bodyOf(
        await session.client.callTool({
          name: "maintenancePro_repairPhoto",
          arguments: { id: repair.id, photoId: photo!.id },
        }),
      );
      expect(one).toEqual(expectStatus(await get(photo!.id), 200));
    } finally {
      await session.close();
    }
  });
});
