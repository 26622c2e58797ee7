/**
 * Compressed answers, through the real server (`bun src/main.ts`) with a raw HTTP/1.1 client: a JSON answer over
 * 1 KiB goes out in the coding the client's Accept-Encoding prefers (zstd, gzip, br; qvalues honoured, `q=0`
 * refuses) and decodes to exactly the bytes sent without one; smaller answers go out as they are; every answer of a
 * route varies by Accept-Encoding; a conditional read's ETag names its coding and brings 304 for that coding only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { harness } from "../support/harness.ts";
import { startService, type RunningService } from "../support/service.ts";
import { insertEvent } from "../calendar/fixtures.ts";
import { addBlock } from "../compliance/fixtures.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
for (let i = 0; i < 40; i++) {
  const day = 11 + (i % 7);
  const startsAt = `2027-01-${day}T${String(8 + (i % 9)).padStart(2, "0")}:${i % 2 ? "30" : "00"}:00.000Z`;
  await insertEvent(db, ws.id, { id: `evt-z-${i}`, startsAt, title: `Viewing ${i} at Flat ${i}, 12 Mill Road` });
}
const property = await h.rows(ws).property({ facts: { fireAlarm: "yes" } });
for (let i = 0; i < 8; i++) {
  await addBlock(db, ws, property, { id: `zip-block-${i}`, facts: { communalWater: "no", storeyOver11m: "yes" } });
}

/** A week of 40 events: well over the threshold (a page from stored days after the first read). */
const agenda = "/calendar/agenda?from=2027-01-11&to=2027-01-18";
/** One event of it: under the threshold. */
const smallAgenda = `${agenda}&limit=1`;
/** A conditional read over the threshold. */
const profiles = "/compliance/block-profiles";

let service: RunningService;
beforeAll(async () => {
  service = await startService(h.database.url);
});
afterAll(() => service?.stop());

/** An answer as it came off the socket: status, headers, and the body's bytes undecoded. */
interface RawAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Sends one request on a fresh connection (closed after the answer) with exactly the headers given, besides Host. */
async function raw(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<RawAnswer> {
  const url = new URL(service.base);
  const socket = connect(Number(url.port), url.hostname);
  const lines = Object.entries({ "x-api-key": ws.key, ...headers })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.write(`${method} ${path} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: close\r\n${lines}\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const end = all.indexOf("\r\n\r\n");
  const [statusLine, ...fields] = all.subarray(0, end).toString("latin1").split("\r\n");
  const parsed = new Headers();
  for (const field of fields) {
    const colon = field.indexOf(":");
    parsed.append(field.slice(0, colon), field.slice(colon + 1).trim());
  }
  const rest = all.subarray(end + 4);
  const chunked = parsed.get("transfer-encoding") === "chunked";
  // A body of 12 KiB or more goes out chunked, without Content-Length (src/core/one_write_body.ts).
  if (chunked) expect(parsed.get("content-length")).toBeNull();
  else expect(parsed.get("transfer-encoding")).toBeNull();
  const body = chunked ? dechunked(rest) : rest;
  if (method !== "HEAD" && !chunked) expect(body.length).toBe(Number(parsed.get("content-length") ?? 0));
  return { status: Number(statusLine!.split(" ")[1]), headers: parsed, body };
}

/** A chunked body's bytes; the last chunk must end it, with nothing after. */
function dechunked(framed: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = framed.indexOf("\r\n", at);
    expect(line).toBeGreaterThan(at);
    const size = Number.parseInt(framed.subarray(at, line).toString("latin1"), 16);
    at = line + 2;
    if (size === 0) break;
    parts.push(framed.subarray(at, at + size));
    expect(framed.subarray(at + size, at + size + 2).toString("latin1")).toBe("\r\n");
    at += size + 2;
  }
  expect(framed.subarray(at).toString("latin1")).toBe("\r\n");
  return Buffer.concat(parts);
}

/** The body's bytes decoded from the coding the answer names. */
function decoded(answer: RawAnswer): Buffer {
  switch (answer.headers.get("content-encoding")) {
    case null:
      return answer.body;
    case "gzip":
      return gunzipSync(answer.body);
    case "br":
      return brotliDecompressSync(answer.body);
    case "zstd":
      return Buffer.from(Bun.zstdDecompressSync(answer.body));
    default:
      throw new Error(`unexpected content-encoding ${answer.headers.get("content-encoding")}`);
  }
}

/** Whether an answer says it varies by Accept-Encoding. */
const varies = (answer: RawAnswer) =>
  (answer.headers.get("vary") ?? "").split(",").some((name) => name.trim().toLowerCase() === "accept-encoding");

describe("compressed answers", () => {
  test("gzip, br and zstd each decode to exactly the bytes of the answer sent without Accept-Encoding", async () => {
    for (const path of [agenda, profiles]) {
      const identity = await raw(path);
      expect(identity.status).toBe(200);
      expect(identity.headers.get("content-encoding")).toBeNull();
      expect(identity.body.length).toBeGreaterThan(1024);
      for (const coding of ["gzip", "br", "zstd"]) {
        const answer = await raw(path, { "accept-encoding": coding });
        expect({ path, status: answer.status, coding: answer.headers.get("content-encoding") }).toEqual({
          path,
          status: 200,
          coding,
        });
        expect(answer.body.length).toBeLessThan(identity.body.length / 2);
        expect(decoded(answer).equals(identity.body)).toBe(true);
        expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
        expect(varies(answer)).toBe(true);
      }
    }
  });

  test("qvalues choose the coding: the highest accepted wins, a tie goes to zstd, then gzip, then br", async () => {
    const identity = await raw(agenda);
    const cases: [string, string | null][] = [
      ["gzip, deflate, br, zstd", "zstd"],
      ["br, gzip", "gzip"],
      ["gzip;q=0.5, br;q=0.9", "br"],
      ["zstd;q=0.1, gzip;q=0.2, br;q=0.15", "gzip"],
      ["zstd;q=0, *", "gzip"],
      ["*", "zstd"],
      ["identity;q=0, br;q=0.1", "br"],
      ["GZIP", "gzip"],
      ["x-gzip", "gzip"],
      ["gzip;q=0.2, identity;q=0.5", null],
      ["br;q=0.5, gzip;q=0, zstd;q=0", "br"],
    ];
    for (const [acceptEncoding, coding] of cases) {
      const answer = await raw(agenda, { "accept-encoding": acceptEncoding });
      expect({ acceptEncoding, coding: answer.headers.get("content-encoding") }).toEqual({ acceptEncoding, coding });
      expect(decoded(answer).equals(identity.body)).toBe(true);
    }
  });

  test("without Accept-Encoding, or accepting no coding the service has: as it is, with Vary", async () => {
    const none = await raw(agenda);
    expect(none.headers.get("content-encoding")).toBeNull();
    expect(varies(none)).toBe(true);
    for (const acceptEncoding of ["", "identity", "deflate", "gzip;q=0", "*;q=0", "compress, deflate;q=0.5"]) {
      const answer = await raw(agenda, { "accept-encoding": acceptEncoding });
      expect({ acceptEncoding, coding: answer.headers.get("content-encoding") }).toEqual({
        acceptEncoding,
        coding: null,
      });
      expect(answer.body.equals(none.body)).toBe(true);
      expect(varies(answer)).toBe(true);
    }
  });

  test("an answer under 1 KiB goes out as it is to a client that accepts every coding", async () => {
    for (const path of [smallAgenda, "/health", "/"]) {
      const identity = await raw(path);
      expect(identity.body.length).toBeLessThan(1024);
      const answer = await raw(path, { "accept-encoding": "gzip, deflate, br, zstd" });
      expect({ path, coding: answer.headers.get("content-encoding"), varies: varies(answer) }).toEqual({
        path,
        coding: null,
        varies: true,
      });
      expect(JSON.parse(answer.body.toString())).toEqual(JSON.parse(identity.body.toString()));
    }
  });

  test("errors vary and compress like any answer: small ones as they are, a 404 over 1 KiB compressed", async () => {
    const small = [
      { path: `${agenda}&limit=abc`, status: 400 },
      { path: "/no/such/route", status: 404 },
    ];
    for (const { path, status } of small) {
      const answer = await raw(path, { "accept-encoding": "gzip" });
      expect({
        path,
        status: answer.status,
        coding: answer.headers.get("content-encoding"),
        varies: varies(answer),
      }).toEqual({ path, status, coding: null, varies: true });
    }
    const unauthenticated = await raw(agenda, { "x-api-key": "", "accept-encoding": "gzip" });
    expect([unauthenticated.status, varies(unauthenticated)]).toEqual([401, true]);
    const long = `/no/such/${"route/".repeat(300)}`;
    const identity = await raw(long);
    expect(identity.status).toBe(404);
    expect(identity.body.length).toBeGreaterThan(1024);
    const answer = await raw(long, { "accept-encoding": "br" });
    expect([answer.status, answer.headers.get("content-encoding"), varies(answer)]).toEqual([404, "br", true]);
    expect(decoded(answer).equals(identity.body)).toBe(true);
    expect(JSON.parse(decoded(answer).toString())._tag).toBe("RouteNotFound");
  });

  test("HEAD carries the headers of the coding GET would send, and no body", async () => {
    const get = await raw(agenda, { "accept-encoding": "gzip" });
    const head = await raw(agenda, { "accept-encoding": "gzip" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.get("content-encoding")).toBe("gzip");
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(varies(head)).toBe(true);
  });
});

describe("a large answer's framing", () => {
  test("a body of 12 KiB or more goes out chunked; a smaller one, its HEAD, and a compressed one keep Content-Length", async () => {
    const large = await raw(agenda);
    expect(large.body.length).toBeGreaterThanOrEqual(12 * 1024);
    expect([large.status, large.headers.get("transfer-encoding"), large.headers.get("content-length")]).toEqual([
      200,
      "chunked",
      null,
    ]);
    expect((JSON.parse(large.body.toString()) as unknown[]).length).toBe(40);
    const head = await raw(agenda, {}, "HEAD");
    expect([head.status, head.headers.get("content-length"), head.body.length]).toEqual([
      200,
      String(large.body.length),
      0,
    ]);
    const small = await raw(smallAgenda);
    expect([small.status, small.headers.get("transfer-encoding")]).toEqual([200, null]);
    expect(Number(small.headers.get("content-length"))).toBe(small.body.length);
    const gzipped = await raw(agenda, { "accept-encoding": "gzip" });
    expect([gzipped.headers.get("transfer-encoding"), Number(gzipped.headers.get("content-length"))]).toEqual([
      null,
      gzipped.body.length,
    ]);
  });
});

describe("conditional reads, compressed", () => {
  test("a compressed answer's ETag names its coding; sent back, it answers 304 with no body", async () => {
    const identity = await raw(profiles);
    const plain = identity.headers.get("etag")!;
    expect(plain).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
    for (const coding of ["gzip", "br", "zstd"]) {
      const answer = await raw(profiles, { "accept-encoding": coding });
      const etag = answer.headers.get("etag")!;
      expect(etag).toBe(`${plain.slice(0, -1)}-${coding}"`);
      for (const sent of [etag, `W/${etag}`, `"other-1", ${etag}`]) {
        const again = await raw(profiles, { "accept-encoding": coding, "if-none-match": sent });
        expect({ sent, status: again.status, bytes: again.body.length }).toEqual({ sent, status: 304, bytes: 0 });
        expect(again.headers.get("etag")).toBe(etag);
        expect(again.headers.get("content-encoding")).toBeNull();
        expect(varies(again)).toBe(true);
      }
    }
  });

  test("one coding's ETag does not match another's: 200 in the coding asked, with its own tag", async () => {
    const plain = (await raw(profiles)).headers.get("etag")!;
    const gzipTag = (await raw(profiles, { "accept-encoding": "gzip" })).headers.get("etag")!;
    const zstdTag = (await raw(profiles, { "accept-encoding": "zstd" })).headers.get("etag")!;
    expect(new Set([plain, gzipTag, zstdTag]).size).toBe(3);
    const cases: { acceptEncoding?: string; sent: string; coding: string | null; etag: string }[] = [
      { acceptEncoding: "zstd", sent: gzipTag, coding: "zstd", etag: zstdTag },
      { sent: gzipTag, coding: null, etag: plain },
      { acceptEncoding: "gzip", sent: plain, coding: "gzip", etag: gzipTag },
    ];
    for (const c of cases) {
      const headers: Record<string, string> = { "if-none-match": c.sent };
      if (c.acceptEncoding) headers["accept-encoding"] = c.acceptEncoding;
      const answer = await raw(profiles, headers);
      expect({ ...c, status: answer.status, got: answer.headers.get("content-encoding") }).toEqual({
        ...c,
        status: 200,
        got: c.coding,
      });
      expect(answer.headers.get("etag")).toBe(c.etag);
    }
    // A client holding both copies names both: 304 with the tag of the coding it gets now.
    const both = await raw(profiles, { "accept-encoding": "gzip", "if-none-match": `${plain}, ${gzipTag}` });
    expect([both.status, both.headers.get("etag")]).toEqual([304, gzipTag]);
  });
});
