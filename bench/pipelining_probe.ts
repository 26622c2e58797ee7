/**
 * What HTTP/1.1 pipelining could save a webhook delivery (`bun bench/pipelining_probe.ts`): N POSTs shaped as a
 * delivery (its headers and a ~600-byte body) to the benchmark's receiver (`bench/receiver.ts`, in a process of its
 * own) over 16 kept-alive connections, as the dispatcher's lanes to one origin, each connection writing `depth`
 * requests at once and waiting for their answers (depth 1: one at a time, as the service does). Bare sockets, no
 * client code of the service's, so the figures are the exchange's own: this process's CPU and the receiver's a POST,
 * and POSTs a second. N (100000), ROUNDS (2), DEPTHS (1,4,16,32).
 */
import { processCpuMicros } from "./cpu.ts";
import { spawnReceiver } from "./receiver.ts";

const n = Number(process.env.N ?? 100_000);
const rounds = Number(process.env.ROUNDS ?? 2);
const depths = (process.env.DEPTHS ?? "1,4,16,32").split(",").map(Number);
const connections = 16;

const receiver = await spawnReceiver();
const body = JSON.stringify({
  id: "01KB0000000000000000000000",
  type: "company.created",
  occurredAt: "2026-11-28T06:00:00.000Z",
  data: { name: "x".repeat(500) },
});
const request =
  `POST /hook HTTP/1.1\r\nhost: 127.0.0.1:${receiver.port}\r\ncontent-type: application/json\r\n` +
  `user-agent: lettings-service-webhooks/1\r\nwebhook-id: 01KB0000000000000000000000\r\n` +
  `webhook-timestamp: 1764309600\r\nwebhook-signature: v1,${"A".repeat(43)}=\r\naccept-encoding: identity\r\n` +
  `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** A connection: `send(k)` writes k requests at once and settles when their k answers (204, no body) are in. */
async function connection(): Promise<(k: number) => Promise<void>> {
  let waiting: { left: number; resolve: () => void; reject: (e: Error) => void } | null = null;
  let pending = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: receiver.port,
    socket: {
      data(_socket, bytes) {
        pending += bytes.toString("latin1");
        for (let end = pending.indexOf("\r\n\r\n"); end >= 0 && waiting; end = pending.indexOf("\r\n\r\n")) {
          if (!pending.startsWith("HTTP/1.1 204")) waiting.reject(new Error(`answered ${pending.slice(0, 40)}`));
          pending = pending.slice(end + 4);
          if (--waiting.left === 0) {
            const done = waiting;
            waiting = null;
            done.resolve();
          }
        }
      },
    },
  });
  return (k) =>
    new Promise<void>((resolve, reject) => {
      waiting = { left: k, resolve, reject };
      socket.write(request.repeat(k));
    });
}

const sockets = await Promise.all(Array.from({ length: connections }, connection));
async function post(total: number, depth: number): Promise<void> {
  let left = total;
  await Promise.all(
    sockets.map(async (send) => {
      while (left > 0) {
        const k = Math.min(depth, left);
        left -= k;
        await send(k);
      }
    }),
  );
}

try {
  for (const depth of depths) await post(Math.min(n, 20_000), depth); // warm-up
  const figures: { depth: number; round: number; clientMicros: number; receiverMicros: number; perSecond: number }[] =
    [];
  for (let round = 1; round <= rounds; round++) {
    for (const depth of depths) {
      const client = process.cpuUsage();
      const receiverBefore = processCpuMicros(receiver.pid)!;
      const started = performance.now();
      await post(n, depth);
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(client);
      figures.push({
        depth,
        round,
        clientMicros: Math.round(((used.user + used.system) / n) * 10) / 10,
        receiverMicros: Math.round(((processCpuMicros(receiver.pid)! - receiverBefore) / n) * 10) / 10,
        perSecond: Math.round(n / seconds),
      });
    }
  }
  console.log(JSON.stringify({ posts: n, connections, figures }, null, 2));
} finally {
  receiver.stop();
  process.exit(0);
}
