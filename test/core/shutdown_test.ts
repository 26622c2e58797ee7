/** SIGTERM: the service stops taking requests, finishes those in flight, then exits 0 (CONTRACT.md §7). */
import { expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { startService } from "../support/service.ts";

const h = await harness();
const ws = await h.workspace();

test("a request in flight when SIGTERM arrives is answered, then the process exits 0", async () => {
  const service = await startService(h.database.url);
  const port = Number(new URL(service.base).port);
  // Open a request and send only half of its body.
  let answer = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_s, data) => {
        answer += new TextDecoder().decode(data);
      },
    },
  });
  socket.write(
    `POST /tasks/T1/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${ws.key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{`,
  );
  await Bun.sleep(200);
  service.process.proc.kill("SIGTERM");
  await Bun.sleep(300);
  socket.write("}");
  const code = await service.process.exited();
  await Bun.sleep(50);
  expect(answer).toMatch(/^HTTP\/1\.1 404 /);
  expect(answer).toContain(`"_tag":"TaskNotFound"`);
  expect(code).toBe(0);
  // New connections are refused after the stop.
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
});
