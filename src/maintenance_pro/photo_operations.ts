/** The maintenance-pro group's photo operations: a repair's photos, and one photo with its bytes. */
import { Type } from "@sinclair/typebox";
import { operation } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { RepairNotFound } from "./errors.ts";
import { repairPhotoData, repairPhotos } from "./photo_queries.ts";
import { RepairPhoto, RepairPhotoData } from "./photo_schema.ts";
import { PhotoNotFound } from "./photos.ts";

const where =
  "Photos come with the writes that carry them: the tenant's report from the repair page, the contractor's visit " +
  "from the works order's page. Each was checked by its bytes (a JPEG or a PNG, at most 5 MiB; `contentType`, " +
  "`width` and `height` are what the bytes are) and is kept with the repair. No photo has a public address: they " +
  "are read here, with a key that may read the repair.";

/** A repair's photos, without their bytes. */
export const listRepairPhotos = operation({
  id: "maintenancePro.repairPhotos",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/repairs/:id/photos",
  summary: "A repair's photos, without their bytes.",
  description: [
    "The repair's photos in the order they came (`createdAt`, then `id`); an empty list when it has none. An " +
      "unknown repair, or one of another workspace, is 404 `RepairNotFound {repairId}`.",
    where,
  ].join("\n\n"),
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: Type.Array(RepairPhoto, { title: "RepairPhotos" }),
  errors: [RepairNotFound],
  run: async ({ db, principal, params }) => {
    const photos = await repairPhotos(db, principal.workspaceId, params.id);
    if (!photos) throw new RepairNotFound({ repairId: params.id });
    return photos;
  },
});

/** One photo of a repair, with its bytes (base64). */
export const repairPhoto = operation({
  id: "maintenancePro.repairPhoto",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/repairs/:id/photos/:photoId",
  summary: "One photo of a repair, with its bytes.",
  description: [
    "The photo with its bytes as base64 in `data` (at most 5 MiB of photo, about 7 MB of JSON). A photo unknown, " +
      "of another repair or of another workspace is 404 `PhotoNotFound {photoId}`.",
    where,
  ].join("\n\n"),
  params: Type.Object({ id: Id, photoId: Id }, { additionalProperties: false }),
  response: RepairPhotoData,
  errors: [PhotoNotFound],
  run: async ({ db, principal, params }) => {
    const photo = await repairPhotoData(db, principal.workspaceId, params.id, params.photoId);
    if (!photo) throw new PhotoNotFound({ photoId: params.photoId });
    return photo;
  },
});

/** The photo operations, in the group's order. */
export const photoOperations = [listRepairPhotos, repairPhoto];
