/** SIGTERM: the service stops taking requests, finishes those in flight, then exits 0 (CONTRACT.md §7). */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { harness } from "../support/harness.ts";

const h = await harness();
const ws = await h.workspace();
const root = join(import.meta.dir, "..", "..");

test("a request in flight when SIGTERM arrives is answered, then the process exits 0", async () => {
  const proc = Bun.spawn(["bun", "src/main.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: h.database.url, PORT: "0", HOST: "127.0.0.1", WORKERS: "false", LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Read the "listening" line for the port.
  const reader = proc.stdout.getReader();
  let out = "";
  let port = 0;
  while (!port) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`service exited early: ${out}${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
    const m = out.match(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/);
    if (m) port = Number(m[1]);
  }
  // Open a request and send only half of its body.
  let answer = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: { data: (_s, data) => void (answer += new TextDecoder().decode(data)) },
  });
  socket.write(
    `POST /tasks/T1/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${ws.key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{`,
  );
  await Bun.sleep(200);
  proc.kill("SIGTERM");
  await Bun.sleep(300);
  socket.write("}");
  const code = await proc.exited;
  await Bun.sleep(50);
  expect(answer).toMatch(/^HTTP\/1\.1 404 /);
  expect(answer).toContain(`"_tag":"TaskNotFound"`);
  expect(code).toBe(0);
  // New connections are refused after the stop.
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
});
