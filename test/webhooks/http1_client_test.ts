/**
 * The webhook HTTP/1.1 client (src/webhooks/http1_client.ts) against real servers: Bun's HTTP server (an independent,
 * strict parser of what the client sends) and raw TCP servers that answer byte for byte as a test scripts them
 * (chunked, closed connections, stalls, garbage), over TCP and TLS.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket, TCPSocketListener } from "bun";
import { closeIdleConnections, http1Post, idlePlaces, type Http1Post } from "../../src/webhooks/http1_client.ts";
import { eventually } from "../support/service.ts";

const fixtures = join(import.meta.dir, "fixtures");
const cert = readFileSync(join(fixtures, "hooks.example.test.crt"), "utf8");
const key = readFileSync(join(fixtures, "hooks.example.test.key"), "utf8");

afterEach(() => closeIdleConnections());

const text = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("utf8"));

function postTo(port: number, more: Partial<Http1Post> = {}) {
  return http1Post({
    connectTo: "127.0.0.1",
    port,
    host: `hooks.example.test:${port}`,
    path: "/in?x=1",
    headers: [
      ["content-type", "application/json"],
      ["webhook-id", "msg_1"],
    ],
    body: '{"a":"é"}',
    timeoutMs: 2000,
    bodyCap: 1024,
    ...more,
  });
}

describe("against Bun's HTTP server", () => {
  const seen: { port: number; method: string; path: string; headers: Record<string, string>; body: string }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request, srv) {
      const url = new URL(request.url);
      seen.push({
        port: srv.requestIP(request)?.port ?? 0,
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      });
      return new Response(`got ${seen.length} ${"é".repeat(600)}`, { status: seen.length === 1 ? 201 : 500 });
    },
  });
  afterAll(() => server.stop(true));

  test("the request arrives whole; answers come back capped; the connection is kept for the next request", async () => {
    const first = await postTo(server.port!);
    expect(first.status).toBe(201);
    expect(first.error).toBeNull();
    expect(first.body!.length).toBe(1024);
    expect(text(first.body)!.startsWith("got 1 éé")).toBe(true);
    const second = await postTo(server.port!, { body: "second" });
    expect(second.status).toBe(500);
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: "/in?x=1",
      body: '{"a":"é"}',
      headers: {
        host: `hooks.example.test:${server.port}`,
        "content-type": "application/json",
        "webhook-id": "msg_1",
        "content-length": String(Buffer.byteLength('{"a":"é"}')),
        "accept-encoding": "identity",
      },
    });
    expect(seen[1]!.body).toBe("second");
    expect(seen[1]!.port).toBe(seen[0]!.port);
  });

  test("a body of several megabytes goes out whole (the socket takes it in parts)", async () => {
    const body = `"${"0123456789".repeat(600_000)}"`;
    const answer = await postTo(server.port!, { body, timeoutMs: 10_000 });
    expect(answer.status).toBe(500);
    expect(seen.at(-1)!.body).toBe(body);
  });
});

describe("over TLS", () => {
  const ports: number[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key },
    fetch(request, srv) {
      ports.push(srv.requestIP(request)?.port ?? 0);
      return new Response("secure", { status: 200 });
    },
  });
  afterAll(() => server.stop(true));

  test("the certificate is checked against the server name; the connection is kept", async () => {
    const tls = { serverName: "hooks.example.test", ca: cert };
    expect(await postTo(server.port!, { tls })).toEqual({
      status: 200,
      body: new TextEncoder().encode("secure"),
      error: null,
    });
    expect((await postTo(server.port!, { tls })).status).toBe(200);
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
  });

  test("an untrusted certificate, or one for another name, is refused before the request goes out", async () => {
    const before = ports.length;
    const unknown = await postTo(server.port!, { tls: { serverName: "hooks.example.test" } }).catch((e) => e);
    expect(unknown).toBeInstanceOf(Error);
    expect(String(unknown.code ?? unknown.message)).toMatch(/SELF_SIGNED|self.signed/i);
    const other = await postTo(server.port!, { tls: { serverName: "other.example.test", ca: cert } }).catch((e) => e);
    expect(other.code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    // An https URL naming an address (the server name is the address): the certificate must name that address.
    const address = await postTo(server.port!, { tls: { serverName: "127.0.0.1", ca: cert } }).catch((e) => e);
    expect(address.code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(address.message).toContain("IP: 127.0.0.1");
    expect(ports.length).toBe(before);
  });

  test("a certificate trusted through NODE_EXTRA_CA_CERTS is accepted with no ca given", async () => {
    const script = `
      import { http1Post } from ${JSON.stringify(join(import.meta.dir, "../../src/webhooks/http1_client.ts"))};
      const a = await http1Post({ connectTo: "127.0.0.1", port: ${server.port}, host: "hooks.example.test",
        path: "/", headers: [], body: "", timeoutMs: 5000, bodyCap: 10,
        tls: { serverName: "hooks.example.test" } });
      console.log(a.status);`;
    const child = Bun.spawn(["bun", "-e", script], {
      stdout: "pipe",
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(fixtures, "hooks.example.test.crt") },
    });
    expect(await child.exited).toBe(0);
    expect((await new Response(child.stdout).text()).trim()).toBe("200");
  });
});

/** A raw TCP server: each request (head and Content-Length body) is handed to `answer` with its connection's number. */
interface RawServer {
  port: number;
  connections: number;
  closed: number;
  requests: { connection: number; head: string; body: string }[];
  stop(): void;
}

function rawServer(answer: (socket: Socket<RawConnection>, connection: number, request: number) => void): RawServer {
  const state: RawServer = { port: 0, connections: 0, closed: 0, requests: [], stop: () => {} };
  const listener: TCPSocketListener<RawConnection> = Bun.listen<RawConnection>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { n: ++state.connections, buffer: Buffer.alloc(0) };
      },
      data(socket, bytes) {
        const c = socket.data;
        c.buffer = Buffer.concat([c.buffer, bytes]);
        for (;;) {
          const end = c.buffer.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = c.buffer.toString("latin1", 0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (c.buffer.length < end + 4 + length) return;
          const body = c.buffer.toString("utf8", end + 4, end + 4 + length);
          c.buffer = c.buffer.subarray(end + 4 + length);
          state.requests.push({ connection: c.n, head, body });
          answer(socket, c.n, state.requests.length);
        }
      },
      close() {
        state.closed++;
      },
    },
  });
  state.port = listener.port;
  state.stop = () => listener.stop(true);
  return state;
}

interface RawConnection {
  n: number;
  buffer: Buffer;
}

const servers: RawServer[] = [];
function raw(answer: (socket: Socket<RawConnection>, connection: number, request: number) => void) {
  const s = rawServer(answer);
  servers.push(s);
  return s;
}
afterAll(() => {
  for (const s of servers) s.stop();
});

describe("against scripted servers", () => {
  test("a chunked answer is read and the connection kept; Connection: close is not kept", async () => {
    const s = raw((socket, _, request) => {
      if (request === 1) socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n");
      else socket.write("HTTP/1.1 202 Accepted\r\nconnection: close\r\ncontent-length: 3\r\n\r\nbye");
    });
    expect(await postTo(s.port)).toEqual({ status: 200, body: new TextEncoder().encode("ok"), error: null });
    expect(text((await postTo(s.port)).body)).toBe("bye");
    expect((await postTo(s.port)).status).toBe(202);
    expect(s.requests.map((r) => r.connection)).toEqual([1, 1, 2]);
  });

  test("a place is forgotten once its last idle connection is gone (taken, or closed by the server)", async () => {
    const sockets: Socket<RawConnection>[] = [];
    const s = raw((socket) => {
      sockets.push(socket);
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
    });
    expect(idlePlaces()).toBe(0);
    await postTo(s.port);
    expect(idlePlaces()).toBe(1);
    // Taken for the next request (and kept again after it).
    await postTo(s.port);
    expect(idlePlaces()).toBe(1);
    expect(s.requests.map((r) => r.connection)).toEqual([1, 1]);
    sockets[0]!.terminate();
    for (let i = 0; i < 100 && idlePlaces() > 0; i++) await Bun.sleep(10);
    expect(idlePlaces()).toBe(0);
  });

  test("an answer arriving a byte at a time, after a 100 Continue", async () => {
    const s = raw((socket) => {
      const bytes = Buffer.from("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nx-slow: yes\r\n\r\n");
      void (async () => {
        for (const b of bytes) {
          socket.write(Buffer.from([b]));
          await Bun.sleep(1);
        }
      })();
    });
    expect(await postTo(s.port)).toEqual({ status: 204, body: new Uint8Array(), error: null });
  });

  test("a kept connection the server closed as the next request arrived: sent again on a new one", async () => {
    const s = raw((socket, connection, request) => {
      if (request === 2)
        socket.terminate(); // the race: closed with no answer
      else socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n${connection}`);
    });
    expect(text((await postTo(s.port)).body)).toBe("1");
    expect(text((await postTo(s.port)).body)).toBe("2");
    expect(s.requests.map((r) => r.connection)).toEqual([1, 1, 2]);
  });

  test("a new connection closed with no answer fails at once, sent once", async () => {
    const s = raw((socket) => socket.terminate());
    const error = await postTo(s.port).catch((e) => e);
    // A reset or a plain close, as the kernel tells it.
    expect(error.message).toMatch(/ECONNRESET|connection reset|the connection closed before an answer/);
    expect(s.requests).toHaveLength(1);
    expect(s.connections).toBe(1);
  });

  test("no answer within the bound: timed out, and the connection closed", async () => {
    const s = raw(() => {});
    const error = await postTo(s.port, { timeoutMs: 300 }).catch((e) => e);
    expect(error.message).toBe("timed out after 300 ms");
    expect(await eventually(() => s.closed > 0, 5000)).toBe(true);
    expect(s.closed).toBe(1);
  });

  test("a status whose body stalls: the status is the answer, the body unread, the reason kept", async () => {
    const s = raw((socket) => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial"));
    expect(await postTo(s.port, { timeoutMs: 300 })).toEqual({
      status: 200,
      body: null,
      error: "reading the answer: timed out after 300 ms",
    });
  });

  test("a body to the connection's end; a body cut short keeps its status and says so", async () => {
    const s = raw((socket, _, request) => {
      if (request === 1) socket.end("HTTP/1.0 200 OK\r\n\r\nwhole body");
      else socket.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\ncut");
    });
    expect(text((await postTo(s.port)).body)).toBe("whole body");
    expect(await postTo(s.port)).toEqual({
      status: 200,
      body: null,
      error: "reading the answer: the connection closed before the answer's end",
    });
  });

  test("garbage instead of HTTP fails, and the connection is not used again", async () => {
    const s = raw((socket) => socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n"));
    const error = await postTo(s.port).catch((e) => e);
    expect(error.message).toContain("not an HTTP/1.x answer");
    await postTo(s.port).catch(() => {});
    expect(s.connections).toBe(2);
  });

  test("nothing listening: the connection error", async () => {
    const s = raw(() => {});
    const port = s.port;
    s.stop();
    const error = await postTo(port).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("ECONNREFUSED");
  });
});

test("idle kept connections do not keep a process alive", async () => {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
  try {
    // The process runs out of work (beforeExit) while its connection is still kept idle (4 s, idleSeconds): a
    // connection that held the process would be closed by then, its place forgotten.
    const client = JSON.stringify(join(import.meta.dir, "../../src/webhooks/http1_client.ts"));
    const script = `
      import { http1Post, idlePlaces } from ${client};
      const a = await http1Post({ connectTo: "127.0.0.1", port: ${server.port}, host: "h", path: "/", headers: [],
        body: "x", timeoutMs: 5000, bodyCap: 10 });
      console.log(a.status);
      process.once("beforeExit", () => console.log("idle places at the end:", idlePlaces()));`;
    const child = Bun.spawn(["bun", "-e", script], { stdout: "pipe" });
    expect(await child.exited).toBe(0);
    expect((await new Response(child.stdout).text()).trim()).toBe("200\nidle places at the end: 1");
  } finally {
    server.stop(true);
  }
});
