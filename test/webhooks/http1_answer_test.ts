/**
 * Reading HTTP/1.x answers (src/webhooks/http1_answer.ts): each answer below is fed whole, cut at every byte, and
 * byte by byte; every way gives the same status, body, completeness and connection reuse.
 */
import { describe, expect, test } from "bun:test";
import { AnswerReader, MalformedAnswer, maxHeadBytes } from "../../src/webhooks/http1_answer.ts";

interface Read {
  status: number;
  body: string;
  complete: boolean;
  keepAlive: boolean;
  /** The reader asked for no more bytes (complete, or its body capped). */
  stopped: boolean;
}

/** Feeds `pieces` in order, stopping when the reader does; `closed`: the connection then ended. */
function read(pieces: Buffer[], cap = 1024, closed = false): Read {
  const r = new AnswerReader(cap);
  let stopped = false;
  for (const piece of pieces) {
    if (r.feed(piece)) {
      stopped = true;
      break;
    }
  }
  if (!stopped && closed) r.ended();
  return {
    status: r.status,
    body: Buffer.from(r.body()).toString("latin1"),
    complete: r.complete,
    keepAlive: r.keepAlive,
    stopped,
  };
}

/** Every way to cut `text`: whole, in two at each byte, and byte by byte. */
function everyCut(text: string): Buffer[][] {
  const bytes = Buffer.from(text, "latin1");
  const ways: Buffer[][] = [[bytes]];
  for (let i = 1; i < bytes.length; i++) ways.push([bytes.subarray(0, i), bytes.subarray(i)]);
  ways.push([...bytes].map((b) => Buffer.from([b])));
  return ways;
}

function expectEveryCut(text: string, expected: Read, options: { cap?: number; closed?: boolean } = {}) {
  for (const pieces of everyCut(text)) expect(read(pieces, options.cap, options.closed)).toEqual(expected);
}

describe("answers read to their end", () => {
  test("Content-Length: the body, and the connection kept", () => {
    expectEveryCut("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello", {
      status: 200,
      body: "hello",
      complete: true,
      keepAlive: true,
      stopped: true,
    });
  });

  test("204 and 304 have no body; Content-Length: 0 neither", () => {
    for (const head of [
      "HTTP/1.1 204 No Content",
      "HTTP/1.1 304 Not Modified",
      "HTTP/1.1 200 OK\r\ncontent-length: 0",
    ]) {
      expectEveryCut(`${head}\r\n\r\n`, {
        status: Number(head.slice(9, 12)),
        body: "",
        complete: true,
        keepAlive: true,
        stopped: true,
      });
    }
  });

  test("chunked, with a chunk extension and trailers", () => {
    const answer =
      "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" +
      "5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n";
    expectEveryCut(answer, { status: 202, body: "hello 0123456789", complete: true, keepAlive: true, stopped: true });
  });

  test("interim 1xx answers are skipped", () => {
    expectEveryCut(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
      {
        status: 201,
        body: "ok",
        complete: true,
        keepAlive: true,
        stopped: true,
      },
    );
  });

  test("no length: the body runs to the connection's end, and the connection is not kept", () => {
    const answer = "HTTP/1.0 200 OK\r\nServer: old\r\n\r\nall of it";
    expectEveryCut(
      answer,
      { status: 200, body: "all of it", complete: true, keepAlive: false, stopped: false },
      {
        closed: true,
      },
    );
    // A coding other than chunked last: to the end too (RFC 9112, 6.3).
    expectEveryCut(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz",
      {
        status: 200,
        body: "zz",
        complete: true,
        keepAlive: false,
        stopped: false,
      },
      { closed: true },
    );
  });

  test("Connection: close, and HTTP/1.0, are not kept", () => {
    for (const answer of [
      "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok",
      "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ]) {
      expectEveryCut(answer, { status: 200, body: "ok", complete: true, keepAlive: false, stopped: true });
    }
  });

  test("bytes after the answer: complete, but the connection is not kept", () => {
    expect(read([Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n")])).toEqual({
      status: 200,
      body: "ok",
      complete: true,
      keepAlive: false,
      stopped: true,
    });
  });
});

describe("answers not read to their end", () => {
  test("a body past the cap stops the reading at the cap (not complete: the connection is not kept)", () => {
    const answer = `HTTP/1.1 500 Internal Server Error\r\nContent-Length: 3000\r\n\r\n${"x".repeat(1500)}`;
    for (const pieces of [[Buffer.from(answer)], [Buffer.from(answer.slice(0, 700)), Buffer.from(answer.slice(700))]]) {
      expect(read(pieces, 1024)).toEqual({
        status: 500,
        body: "x".repeat(1024),
        complete: false,
        keepAlive: true,
        stopped: true,
      });
    }
  });

  test("a body cut by the connection's end is not complete", () => {
    const r = new AnswerReader(1024);
    expect(r.feed(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"))).toBe(false);
    expect(r.ended()).toBe(false);
    expect([r.status, r.complete, r.keepAlive]).toEqual([200, false, false]);
  });

  test("malformed answers are refused", () => {
    const bad = [
      "SSH-2.0-OpenSSH_9.6\r\n\r\n",
      "HTTP/2 200\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXY",
    ];
    for (const answer of bad) expect(() => read([Buffer.from(answer)])).toThrow(MalformedAnswer);
  });

  test("a head longer than the limit is refused before its end arrives", () => {
    const r = new AnswerReader(1024);
    expect(r.feed(Buffer.from("HTTP/1.1 200 OK\r\n"))).toBe(false);
    expect(() => r.feed(Buffer.from(`X-Big: ${"y".repeat(maxHeadBytes)}`))).toThrow(MalformedAnswer);
  });
});
