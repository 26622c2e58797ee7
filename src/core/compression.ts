/**
 * Compressed JSON answers for clients that ask (Accept-Encoding, RFC 9110 §12.5.3): which content coding an answer
 * goes out in, and its bytes in that coding. The levels and the threshold are measured in bench/compression.ts
 * (bench/README.md).
 */
import { brotliCompressSync, constants } from "node:zlib";

/** A content coding an answer can go out in. */
export type Coding = "zstd" | "br" | "gzip" | "identity";

/**
 * The codings the service compresses with, in its order of preference when a client accepts several equally: the
 * fewest bytes for the CPU first (bench/README.md, "Compression").
 */
export const compressedCodings: readonly Exclude<Coding, "identity">[] = ["zstd", "gzip", "br"];

/**
 * Bodies shorter than this (UTF-16 code units: bytes, for the service's ASCII-mostly JSON) go out as they are: with
 * the answer's head they fit in one TCP segment anyway, so compressing them would spend CPU and save no packet.
 */
export const compressMinLength = 1024;

/**
 * The level of each coding: the one saving the most bytes per CPU µs on an agenda page (every level already cuts it
 * 8 to 13 times; CPU is what the service is short of). bench/compression.ts measures them.
 */
export const codingLevels = { zstd: 1, gzip: 1, br: 0 } as const;

/** An Accept-Encoding element: a coding and its qvalue (RFC 9110 §12.4.2: 0 to 1, at most three decimals). */
const element = /^\s*([a-z0-9!#$%&'*+.^_`|~-]+)\s*(?:;\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*)?$/i;

/**
 * The qvalue a header gives each coding it names (`x-gzip` counts as `gzip`, `*` stands for the rest); an element
 * that does not parse (an unknown parameter, a qvalue out of range) is ignored.
 */
function acceptedCodings(acceptEncoding: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const m = element.exec(part);
    if (!m) continue;
    const name = m[1]!.toLowerCase();
    const coding = name === "x-gzip" ? "gzip" : name;
    const q = m[2] === undefined ? 1 : Number(m[2]);
    // A coding named twice keeps its highest weight.
    weights.set(coding, Math.max(q, weights.get(coding) ?? 0));
  }
  return weights;
}

/**
 * The coding of an answer whose body is `bodyLength` long: identity below the threshold or without the header;
 * else the accepted coding of highest qvalue (`*` counting for the codings not named), the service's preference
 * breaking ties. Identity is acceptable unless refused (`identity;q=0`, or `*;q=0` without naming it), and then
 * preferred only when its qvalue is higher; when nothing is acceptable the answer is identity all the same.
 */
export function codingFor(acceptEncoding: string | null | undefined, bodyLength: number): Coding {
  if (!acceptEncoding || bodyLength < compressMinLength) return "identity";
  let coding = chosen.get(acceptEncoding);
  if (coding === undefined) {
    coding = negotiate(acceptEncoding);
    // Clients send a handful of distinct headers: the choice is kept for each short one, within a bound.
    if (chosen.size >= 256) chosen.clear();
    if (acceptEncoding.length <= 200) chosen.set(acceptEncoding, coding);
  }
  return coding;
}

/** The coding chosen for each Accept-Encoding header seen lately. */
const chosen = new Map<string, Coding>();

/** The coding an Accept-Encoding header gets for a body over the threshold (codingFor's rules). */
function negotiate(acceptEncoding: string): Coding {
  const weights = acceptedCodings(acceptEncoding);
  const any = weights.get("*");
  let best: Coding = "identity";
  // Identity, when not named, weighs less than any qvalue can (0.001): a compressed coding accepted wins.
  let bestQ = weights.get("identity") ?? (any === 0 ? 0 : 0.0001);
  // From the least preferred up, so that an equal weight goes to the service's preference (and not to identity).
  for (let i = compressedCodings.length - 1; i >= 0; i--) {
    const coding = compressedCodings[i]!;
    const q = weights.get(coding) ?? any ?? 0;
    if (q > 0 && q >= bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/** A body text in a compressed coding. */
export function compress(bodyText: string, coding: Exclude<Coding, "identity">): Uint8Array<ArrayBuffer> {
  switch (coding) {
    case "zstd":
      return Bun.zstdCompressSync(bodyText, { level: codingLevels.zstd }) as Uint8Array<ArrayBuffer>;
    case "br":
      return brotliCompressSync(bodyText, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: codingLevels.br,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bodyText.length,
        },
      }) as Uint8Array<ArrayBuffer>;
    case "gzip":
      return Bun.gzipSync(bodyText, { level: codingLevels.gzip }) as Uint8Array<ArrayBuffer>;
  }
}
