/** The schemas of a repair's photos as the API answers them. */
import { Type } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";

const photoFields = {
  id: Id,
  repairId: Id,
  worksOrderId: Nullable({ ...Id, description: "The works order whose visit the photo evidences, else null." }),
  source: Type.Union([Type.Literal("tenant"), Type.Literal("contractor"), Type.Literal("agency")], {
    description: "Who sent it: the tenant with a report, the contractor with a visit, or the agency.",
  }),
  contentType: Type.Union([Type.Literal("image/jpeg"), Type.Literal("image/png")], {
    description: "What the bytes are (read from them, never from a name or a declared type).",
  }),
  width: Type.Integer({ minimum: 1, description: "Pixels." }),
  height: Type.Integer({ minimum: 1, description: "Pixels." }),
  size: Type.Integer({ minimum: 1, maximum: 5 * 1024 * 1024, description: "Bytes." }),
  sha256: Type.String({ pattern: "^[0-9a-f]{64}$", description: "The SHA-256 of the bytes, in hex." }),
  createdAt: Instant,
};

/** A photo of a repair, without its bytes. */
export const RepairPhoto = Strict(photoFields, {
  title: "RepairPhoto",
  description: "A photo of a repair. Every field is present; a field with no value is null.",
});

/** A photo of a repair with its bytes. */
export const RepairPhotoData = Strict(
  {
    ...photoFields,
    data: Type.String({ contentEncoding: "base64", description: "The photo's bytes, base64 (RFC 4648, padded)." }),
  },
  { title: "RepairPhotoData", description: "A photo of a repair with its bytes." },
);
