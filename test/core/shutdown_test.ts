/** SIGTERM: the service stops taking requests, finishes those in flight, then exits 0 (README, Running it). */
import { expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { existsSync, readFileSync } from "node:fs";
import { envWithout, eventually, root, startService } from "../support/service.ts";

const h = await harness();
const ws = await h.workspace();

/**
 * Whether a process took the connection from 127.0.0.1:`clientPort` to `serverPort` and read what was sent on it:
 * in the kernel's table of TCP sockets, its server end has an inode once accepted, and an empty receive queue once
 * read.
 */
function readByServer(serverPort: number, clientPort: number): boolean {
  const port = (address: string) => Number.parseInt(address.split(":").pop()!, 16);
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(1) : [];
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || port(f[1]!) !== serverPort || port(f[2]!) !== clientPort) continue;
      return f[9] !== "0" && Number.parseInt(f[4]!.split(":")[1]!, 16) === 0;
    }
  }
  return false;
}

test("a request in flight when SIGTERM arrives is answered, then the process exits 0", async () => {
  const service = await startService(h.database.url);
  const port = Number(new URL(service.base).port);
  // Open a request and send only half of its body.
  let answer = "";
  let closed!: () => void;
  const answered = new Promise<void>((resolve) => (closed = resolve));
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_s, data) => {
        answer += new TextDecoder().decode(data);
      },
      close: () => closed(),
    },
  });
  socket.write(
    `POST /tasks/T1/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${ws.key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{`,
  );
  // The service has the request: it took the connection and read what was sent.
  expect(await eventually(() => readByServer(port, socket.localPort), 10_000)).toBe(true);
  const logged = service.process.stdout().length;
  service.process.proc.kill("SIGTERM");
  // It stopped taking connections (the next step of the shutdown, in the same turn), with the request in flight.
  await service.process.waitFor(/"msg":"shutting down"/, logged);
  socket.write("}");
  const code = await service.process.exited();
  await answered;
  expect(answer).toMatch(/^HTTP\/1\.1 404 /);
  expect(answer).toContain(`"_tag":"TaskNotFound"`);
  expect(code).toBe(0);
  // New connections are refused after the stop.
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
});

test("with its stdout closed by the reader, the service still answers, and SIGTERM still exits 0", async () => {
  const proc = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: root,
    env: envWithout([], {
      DATABASE_URL: h.database.url,
      PORT: "0",
      HOST: "127.0.0.1",
      WORKERS: "false",
      LOG_LEVEL: "info",
      SHUTDOWN_DRAIN_MS: "0",
    }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  // Read the log until the `listening` line, then close the pipe: every later line meets EPIPE.
  const reader = proc.stdout.getReader();
  let out = "";
  let base: string | undefined;
  while (!base) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the service ended: ${await stderr}`);
    out += new TextDecoder().decode(value);
    base = out.match(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/)?.[1];
  }
  await reader.cancel();
  for (let i = 0; i < 3; i++) expect((await fetch(`${base}/health`)).status).toBe(200); // each logs a request line
  proc.kill("SIGTERM");
  const code = await proc.exited;
  expect(await stderr).not.toContain("EPIPE");
  expect(code).toBe(0);
});
