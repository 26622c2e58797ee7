/**
 * Photos of a repair: what an upload is, read from its bytes (JPEG or PNG, and its dimensions), never from its name or
 * declared type; the limits; and the refusal. Stored with the repair in `repair_photos` (sql/0039).
 */
import { createHash } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** The most bytes one photo may have: 5 MiB. */
export const photoMaxBytes = 5 * 1024 * 1024;

/** The image types a photo may be. */
export type PhotoType = "image/jpeg" | "image/png";

/** What a photo's bytes are. */
export interface PhotoKind {
  contentType: PhotoType;
  width: number;
  height: number;
}

/** A photo ready to store: its bytes and what they are. */
export interface Photo extends PhotoKind {
  bytes: Uint8Array;
  size: number;
  sha256: Buffer;
}

/** Why a photo was refused. */
export const PhotoRejectedReason = Type.Union([
  Type.Literal("empty"),
  Type.Literal("too_large"),
  Type.Literal("too_many"),
  Type.Literal("not_jpeg_or_png"),
]);

/** A photo was refused: `index` is its place among the request's photos (from 0). Nothing was stored. */
export class PhotoRejected extends TaggedError(
  "PhotoRejected",
  400,
  { reason: PhotoRejectedReason, index: Type.Integer({ minimum: 0 }) },
  "A photo was refused: `empty`, `too_large` (over 5 MiB), `too_many` (over the number allowed) or " +
    "`not_jpeg_or_png` (its bytes are neither a JPEG nor a PNG image, whatever its name or type said). `index` is " +
    "its place among the photos sent, from 0. Nothing was stored.",
) {}

/** 404: no photo with this id on this repair. */
export class PhotoNotFound extends TaggedError(
  "PhotoNotFound",
  404,
  { photoId: Type.String() },
  "No photo with this id on this repair of the workspace.",
) {}

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The width and height of a PNG: its IHDR chunk, first after the signature, with its CRC checked. */
function pngKind(b: Uint8Array): PhotoKind | null {
  if (b.length < 33 || pngSignature.some((byte, i) => b[i] !== byte)) return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (view.getUint32(8) !== 13 || String.fromCharCode(...b.subarray(12, 16)) !== "IHDR") return null;
  if (Bun.hash.crc32(b.subarray(12, 29)) >>> 0 !== view.getUint32(29)) return null;
  return sized("image/png", view.getUint32(16), view.getUint32(20));
}

/**
 * The width and height of a JPEG: its segments walked from the start-of-image marker to the first start-of-frame
 * (SOF0 to SOF15, but DHT, JPG and DAC, which share the range). Image data before a frame header, or a segment
 * running past the end, is no JPEG.
 */
function jpegKind(b: Uint8Array): PhotoKind | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // standalone markers: no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // the end, or scan data, before any frame header
    const length = (b[i + 2]! << 8) | b[i + 3]!;
    if (length < 2 || i + 2 + length > b.length) return null;
    const frame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (frame) {
      if (length < 8) return null;
      return sized("image/jpeg", (b[i + 7]! << 8) | b[i + 8]!, (b[i + 5]! << 8) | b[i + 6]!);
    }
    i += 2 + length;
  }
  return null;
}

function sized(contentType: PhotoType, width: number, height: number): PhotoKind | null {
  return width >= 1 && height >= 1 && width <= 65535 && height <= 65535 ? { contentType, width, height } : null;
}

/** What these bytes are: a JPEG or a PNG with its dimensions, or null. */
export function photoKind(bytes: Uint8Array): PhotoKind | null {
  return pngKind(bytes) ?? jpegKind(bytes);
}

/**
 * The photos of one request, checked in order: each non-empty, at most photoMaxBytes, a JPEG or a PNG by its bytes;
 * at most `most` of them. The first that fails is refused (PhotoRejected with its index).
 */
export function checkPhotos(uploads: readonly Uint8Array[], most: number): Photo[] {
  if (uploads.length > most) throw new PhotoRejected({ reason: "too_many", index: most });
  return uploads.map((bytes, index) => {
    if (bytes.length === 0) throw new PhotoRejected({ reason: "empty", index });
    if (bytes.length > photoMaxBytes) throw new PhotoRejected({ reason: "too_large", index });
    const kind = photoKind(bytes);
    if (!kind) throw new PhotoRejected({ reason: "not_jpeg_or_png", index });
    return { ...kind, bytes, size: bytes.length, sha256: createHash("sha256").update(bytes).digest() };
  });
}
