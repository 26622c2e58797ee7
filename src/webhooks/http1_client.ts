/**
 * A small HTTP/1.1 client for webhook POSTs over kept-alive connections (TCP or TLS on Bun's sockets): one request at
 * a time a connection, the answer's status and the first bytes of its body, the whole exchange within a deadline.
 *
 * Why not `fetch`: on the dispatcher's path a POST through `fetch`, with what bounding it takes (an AbortController,
 * a timer, a race, a stream reader for the capped body), cost ~25 µs of CPU; through this ~9 µs (bench/README.md,
 * "Webhooks"). It does only what a webhook needs: a POST with a body of known length; answers framed by
 * Content-Length, chunked, or the connection's end (http1_answer.ts); redirects not followed (their status is the
 * answer); no proxy, no compression (it asks for none).
 *
 * Connections: a request takes an idle connection to the same place (address, port, TLS name and trust) or opens one;
 * after a complete answer that allows it, the connection is kept idle (at most `maxIdlePerPlace` a place) for
 * `idleSeconds`, unreferenced (it never keeps the process alive). A request on a kept connection that the server
 * closed before answering a byte (its idle timeout crossing ours) is sent once more on a new connection: a webhook may
 * arrive twice anyway (at least once), and the receiver has the same webhook-id to tell.
 */
import type { Socket } from "bun";
import { AnswerReader } from "./http1_answer.ts";

/** One POST. */
export interface Http1Post {
  /** Where to connect: an IP address (an IPv6 one without brackets) or a host name. */
  connectTo: string;
  port: number;
  /** Over TLS: the name the certificate must match (sent as SNI), and extra trusted certificates (PEM; tests). */
  tls?: { serverName: string; ca?: string };
  /** The Host header. */
  host: string;
  /** The request target: path and query. */
  path: string;
  /** Header lines besides Host, Content-Length and Accept-Encoding, each without CR or LF. */
  headers: readonly (readonly [string, string])[];
  body: string;
  /** The whole exchange's bound, from the call. */
  timeoutMs: number;
  /** Bytes of the answer's body kept: reading stops there. */
  bodyCap: number;
}

/** An answer: its status, the first `bodyCap` bytes of its body, and why the body could not be read, if so. */
export interface Http1Answer {
  status: number;
  body: Uint8Array | null;
  error: string | null;
}

/** Idle connections kept a place. */
export const maxIdlePerPlace = 32;
/** Seconds an idle connection is kept (below the 5 s keep-alive of Node's servers, the shortest common one). */
export const idleSeconds = 4;

/** A connection: opening (for a call), carrying a call's request, or idle. */
interface Connection {
  place: string;
  socket: Socket<Connection> | null;
  /** The call it carries (or opens for); null when idle. */
  call: Call | null;
  /** Opened and, over TLS, its certificate checked. */
  open: boolean;
  /** Request bytes the socket did not take yet. */
  unsent: Buffer | null;
  closed: boolean;
}

/** One POST being made. */
interface Call {
  p: Http1Post;
  place: string;
  request: string;
  /** The request's length in bytes. */
  requestBytes: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  resolve: (answer: Http1Answer) => void;
  reject: (error: Error) => void;
  conn: Connection | null;
  reader: AnswerReader;
  /** The connection was idle before this call: a close before any answer may be the server's idle timeout. */
  reused: boolean;
  /** Bytes of the answer arrived. */
  answered: boolean;
  done: boolean;
}

const idle = new Map<string, Connection[]>();

function placeOf(p: Http1Post): string {
  return p.tls ? `tls ${p.connectTo} ${p.port} ${p.tls.serverName} ${p.tls.ca ?? ""}` : `tcp ${p.connectTo} ${p.port}`;
}

/** The connection is open (TLS: and trusted): its call's request goes out. */
function opened(socket: Socket<Connection>) {
  const c = socket.data;
  c.socket = socket;
  c.open = true;
  if (!c.call || c.call.done) {
    c.call = null;
    socket.terminate();
    return;
  }
  send(c.call, c, false);
}

const handlers = {
  open(socket: Socket<Connection>) {
    socket.data.socket = socket;
    // With a `handshake` handler, a TLS socket opens before its certificate is checked: wait for that.
    if (!socket.data.place.startsWith("tls ")) opened(socket);
  },
  handshake(socket: Socket<Connection>, success: boolean, error: Error | null) {
    if (success) return opened(socket);
    socket.data.socket = socket;
    gone(socket.data, error ?? new Error("the TLS handshake failed"));
    socket.terminate();
  },
  data(socket: Socket<Connection>, bytes: Buffer) {
    const call = socket.data.call;
    if (!call || !socket.data.open) {
      // Bytes with no request out: the connection is not trusted again.
      socket.terminate();
      return;
    }
    call.answered = true;
    let done: boolean;
    try {
      done = call.reader.feed(bytes);
    } catch (error) {
      settle(call, error as Error); // and the connection is closed: it is not trusted again
      return;
    }
    if (done) settle(call, { status: call.reader.status, body: call.reader.body(), error: null });
  },
  drain(socket: Socket<Connection>) {
    writeSome(socket.data);
  },
  close(socket: Socket<Connection>, error?: Error) {
    gone(socket.data, error);
  },
  error(socket: Socket<Connection>, error: Error) {
    gone(socket.data, error);
    socket.terminate();
  },
  connectError(socket: Socket<Connection>, error: Error) {
    gone(socket.data, error);
  },
  timeout(socket: Socket<Connection>) {
    // Only idle connections have a socket timeout: an idle one is closed.
    if (!socket.data.call) socket.terminate();
  },
};

/** The connection is gone: out of the idle list; the call it carried ends with it, or is sent again (a race). */
function gone(c: Connection, error?: Error) {
  if (c.closed) return;
  c.closed = true;
  const list = idle.get(c.place);
  const i = list ? list.indexOf(c) : -1;
  if (i >= 0) list!.splice(i, 1);
  if (list && !list.length) idle.delete(c.place);
  const call = c.call;
  c.call = null;
  if (!call || call.done || call.conn !== c) return;
  if (call.reused && !call.answered) {
    // A kept connection the server closed before answering: once more, on a new connection.
    call.reused = false;
    connect(call);
    return;
  }
  if (call.reader.ended()) {
    settle(call, { status: call.reader.status, body: call.reader.body(), error: null });
  } else if (call.reader.status) {
    const why = error?.message ?? "the connection closed before the answer's end";
    settle(call, { status: call.reader.status, body: null, error: `reading the answer: ${why}` });
  } else {
    settle(call, error ?? new Error("the connection closed before an answer"));
  }
}

function writeSome(c: Connection) {
  if (!c.unsent || !c.socket) return;
  const n = c.socket.write(c.unsent);
  c.unsent = n >= c.unsent.length ? null : c.unsent.subarray(Math.max(n, 0));
}

/** Sends the call's request on an open connection. */
function send(call: Call, c: Connection, reused: boolean) {
  c.call = call;
  call.conn = c;
  call.reused = reused;
  const n = c.socket!.write(call.request);
  // Rarely the socket takes part of it: the rest, as bytes, goes out as it drains.
  if (n < call.requestBytes) c.unsent = Buffer.from(call.request).subarray(Math.max(n, 0));
}

/** Opens a new connection for the call; the request goes out once it is open. */
function connect(call: Call) {
  const p = call.p;
  const c: Connection = { place: call.place, socket: null, call, open: false, unsent: null, closed: false };
  call.conn = c;
  Bun.connect<Connection>({
    hostname: p.connectTo,
    port: p.port,
    data: c,
    ...(p.tls ? { tls: { serverName: p.tls.serverName, ...(p.tls.ca ? { ca: p.tls.ca } : {}) } } : {}),
    socket: handlers,
  }).catch((error: Error) => gone(c, error));
}

function takeIdle(place: string): Connection | undefined {
  const list = idle.get(place);
  while (list?.length) {
    const c = list.pop()!;
    if (!list.length) idle.delete(place);
    if (!c.closed && c.socket) {
      c.socket.timeout(0);
      c.socket.ref();
      return c;
    }
  }
  return undefined;
}

/** The call is over: its connection kept idle when the answer allows it, else closed. */
function settle(call: Call, outcome: Http1Answer | Error) {
  if (call.done) return;
  call.done = true;
  clearTimeout(call.timer);
  const c = call.conn;
  if (c) {
    c.call = null;
    const reusable = !(outcome instanceof Error) && call.reader.complete && call.reader.keepAlive;
    const list = idle.get(c.place) ?? [];
    if (!reusable || c.closed || !c.socket || c.unsent || list.length >= maxIdlePerPlace) c.socket?.terminate();
    else {
      c.socket.unref();
      c.socket.timeout(idleSeconds);
      list.push(c);
      idle.set(c.place, list);
    }
  }
  if (outcome instanceof Error) call.reject(outcome);
  else call.resolve(outcome);
}

/** The deadline passed: the connection is closed; a status already read is the answer, its body unread. */
function timedOut(call: Call) {
  if (call.done) return;
  const error = new Error(`timed out after ${call.p.timeoutMs} ms`);
  const c = call.conn;
  call.conn = null;
  if (c) {
    c.call = null;
    c.socket?.terminate();
  }
  settle(
    call,
    call.reader.status
      ? { status: call.reader.status, body: null, error: `reading the answer: ${error.message}` }
      : error,
  );
}

/** The request's head (ASCII: the URL's host and path are encoded, the header values are the service's own). */
function requestHead(p: Http1Post, bodyBytes: number): string {
  let head = `POST ${p.path} HTTP/1.1\r\nhost: ${p.host}\r\n`;
  for (const [name, value] of p.headers) head += `${name}: ${value}\r\n`;
  return `${head}accept-encoding: identity\r\ncontent-length: ${bodyBytes}\r\n\r\n`;
}

/**
 * POSTs `p` and answers the status and the first bytes of the body; rejects when no status came (cannot connect,
 * TLS refused, the connection closed, a malformed answer, or the deadline passed first: "timed out after N ms").
 */
export function http1Post(p: Http1Post): Promise<Http1Answer> {
  return new Promise((resolve, reject) => {
    const bodyBytes = Buffer.byteLength(p.body);
    const head = requestHead(p, bodyBytes);
    const call: Call = {
      p,
      place: placeOf(p),
      request: head + p.body,
      requestBytes: head.length + bodyBytes,
      timer: undefined,
      resolve,
      reject,
      conn: null,
      reader: new AnswerReader(p.bodyCap),
      reused: false,
      answered: false,
      done: false,
    };
    call.timer = setTimeout(() => timedOut(call), p.timeoutMs);
    const kept = takeIdle(call.place);
    if (kept) send(call, kept, true);
    else connect(call);
  });
}

/** Closes every idle connection (tests; a process that ends needs nothing: idle connections are unreferenced). */
export function closeIdleConnections(): void {
  for (const list of idle.values()) for (const c of list.splice(0)) c.socket?.terminate();
  idle.clear();
}

/**
 * The places with idle connections (tests): a place is forgotten with its last idle connection, so receivers whose
 * addresses change over months leave nothing behind.
 */
export function idlePlaces(): number {
  return idle.size;
}
