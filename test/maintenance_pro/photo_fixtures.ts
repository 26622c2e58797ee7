/** Photos for tests: PNGs written by hand (the format is simple and its CRC is zlib's), of any size. */
import { deflateSync } from "node:zlib";
import type { Db } from "../../src/core/db.ts";
import { insertPhotos, type RepairPhotoRow } from "../../src/maintenance_pro/photo_queries.ts";
import { checkPhotos } from "../../src/maintenance_pro/photos.ts";

/** A PNG written by hand for the cases Chromium will not make: `ihdr` as given, its CRC right unless `badCrc`. */
export function png(ihdr: Buffer, badCrc = false): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE((Bun.hash.crc32(body) + (badCrc && type === "IHDR" ? 1 : 0)) >>> 0);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, body, crc]);
  };
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([
      signature,
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(Buffer.alloc(4))),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}
export const ihdr = (width: number, height: number) => {
  const b = Buffer.alloc(13);
  b.writeUInt32BE(width, 0);
  b.writeUInt32BE(height, 4);
  b.set([8, 2, 0, 0, 0], 8);
  return b;
};

/** A valid PNG of width × height (its pixels are not drawn: a header is what the checks read). */
export const tinyPng = (width = 2, height = 2) => png(ihdr(width, height));

/** Stores PNG photos on a repair as a write would, answering them as the API does (without bytes). */
export async function addPhotos(
  db: Db,
  to: { workspaceId: string; repairId: string; worksOrderId?: string | null; source?: RepairPhotoRow["source"] },
  sizes: readonly [number, number][],
): Promise<RepairPhotoRow[]> {
  const photos = checkPhotos(
    sizes.map(([w, h]) => tinyPng(w, h)),
    sizes.length,
  ).map((photo, i) => ({ ...photo, id: `photo-${Date.now()}-${i}-${Math.random().toString(36).slice(2, 8)}` }));
  return db.begin((tx) =>
    insertPhotos(
      tx,
      {
        workspaceId: to.workspaceId,
        repairId: to.repairId,
        worksOrderId: to.worksOrderId ?? null,
        source: to.source ?? "tenant",
      },
      photos,
    ),
  );
}
