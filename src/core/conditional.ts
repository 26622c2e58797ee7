/**
 * Conditional reads: a strong ETag made from an answer's bytes, and the If-None-Match test that turns a read of
 * unchanged content into 304 Not Modified without a body (RFC 9110 §13.1.2, weak comparison).
 */
import type { Coding } from "./compression.ts";

/**
 * The strong entity tag of an answer's body text: its 64-bit hash and length, quoted; sent compressed, the coding
 * is added (`"…-…-gzip"`), so the tag of each coding's bytes differs and names only them.
 */
export function entityTag(bodyText: string, coding: Coding = "identity"): string {
  const tag = `${Bun.hash(bodyText).toString(36)}-${bodyText.length.toString(36)}`;
  return coding === "identity" ? `"${tag}"` : `"${tag}-${coding}"`;
}

/** Whether an If-None-Match header value names this entity tag (or is `*`): then the answer is 304. */
export function noneMatchHits(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, "");
  for (const part of ifNoneMatch.split(",")) {
    const tag = part.trim();
    if (tag === "*" || tag.replace(/^W\//, "") === opaque) return true;
  }
  return false;
}
