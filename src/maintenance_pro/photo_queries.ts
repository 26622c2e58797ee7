/** The SQL of a repair's photos (sql/0039). */
import type { Static } from "@sinclair/typebox";
import type { Db, Tx } from "../core/db.ts";
import type { Photo } from "./photos.ts";
import type { RepairPhoto } from "./photo_schema.ts";
import type { RepairPhotoListed } from "./repair_schema.ts";

/** A photo as answered, without its bytes. */
export type RepairPhotoRow = Static<typeof RepairPhoto>;

const photoColumns = (db: Db | Tx) => db`
  p.id, p.repair_id, p.works_order_id, p.source, p.content_type, p.width, p.height, p.size,
  encode(p.sha256, 'hex') as sha256, iso(p.created_at) as created_at`;

/** A stored photo as its repair lists it. */
export function photoListed(p: RepairPhotoRow): Static<typeof RepairPhotoListed> {
  return { id: p.id, contentType: p.contentType, bytes: p.size, uploadedAt: p.createdAt };
}

/** Stores the photos of one write, in its transaction, in the order given; answers them without their bytes. */
export async function insertPhotos(
  tx: Tx,
  to: { workspaceId: string; repairId: string; worksOrderId: string | null; source: RepairPhotoRow["source"] },
  photos: readonly (Photo & { id: string })[],
): Promise<RepairPhotoRow[]> {
  const stored: RepairPhotoRow[] = [];
  for (const photo of photos) {
    const [row] = await tx<RepairPhotoRow[]>`
      insert into repair_photos as p (workspace_id, id, repair_id, works_order_id, source, content_type, width,
                                      height, size, sha256, bytes)
      values (${to.workspaceId}, ${photo.id}, ${to.repairId}, ${to.worksOrderId}, ${to.source},
              ${photo.contentType}, ${photo.width}, ${photo.height}, ${photo.size}, ${photo.sha256},
              ${Buffer.from(photo.bytes.buffer, photo.bytes.byteOffset, photo.bytes.byteLength)})
      returning ${photoColumns(tx)}`;
    stored.push(row!);
  }
  if (stored.length) {
    // The repair lists them (its `photos`), in the order they came.
    await tx`
      update repairs set photos = photos || ${tx.json(stored.map(photoListed) as never)}::jsonb
      where workspace_id = ${to.workspaceId} and id = ${to.repairId}`;
  }
  return stored;
}

/**
 * A write of a repair's photos alone (a visit that writes nothing else on it): its revision up by one and
 * `updatedAt` now, as for every change of the resource.
 */
export async function touchRepair(tx: Tx, workspaceId: string, repairId: string): Promise<void> {
  await tx`
    update repairs set revision = revision + 1, updated_at = now()
    where workspace_id = ${workspaceId} and id = ${repairId}`;
}

/** A repair's photos in the order they came, in one statement; undefined when the workspace has no such repair. */
export async function repairPhotos(
  db: Db | Tx,
  workspaceId: string,
  repairId: string,
): Promise<RepairPhotoRow[] | undefined> {
  const rows = await db<(RepairPhotoRow | { id: null })[]>`
    select ${photoColumns(db)} from repairs r
    left join repair_photos p on p.workspace_id = r.workspace_id and p.repair_id = r.id
    where r.workspace_id = ${workspaceId} and r.id = ${repairId}
    order by p.created_at, p.id`;
  if (!rows.length) return undefined;
  return rows.filter((row): row is RepairPhotoRow => row.id !== null);
}

/** One photo of a repair with its bytes as base64, or undefined. */
export async function repairPhotoData(
  db: Db | Tx,
  workspaceId: string,
  repairId: string,
  photoId: string,
): Promise<(RepairPhotoRow & { data: string }) | undefined> {
  const [row] = await db<(RepairPhotoRow & { data: string })[]>`
    select ${photoColumns(db)}, translate(encode(p.bytes, 'base64'), E'\n', '') as data from repair_photos p
    where p.workspace_id = ${workspaceId} and p.repair_id = ${repairId} and p.id = ${photoId}`;
  return row;
}

/** One photo of a repair as bytes with its type, or undefined. */
export async function repairPhotoBytes(
  db: Db | Tx,
  workspaceId: string,
  repairId: string,
  photoId: string,
): Promise<{ contentType: string; bytes: Buffer } | undefined> {
  const [row] = await db<{ contentType: string; bytes: Buffer }[]>`
    select content_type, bytes from repair_photos
    where workspace_id = ${workspaceId} and repair_id = ${repairId} and id = ${photoId}`;
  return row;
}
