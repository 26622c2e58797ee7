/**
 * A webhook receiver for benchmarks, in a process of its own (as an integrator's is): answers every POST 204 and
 * `GET /count` with how many POSTs it has had; prints its port.
 */
if (import.meta.main) {
  let received = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method === "GET") return new Response(String(received));
      await request.arrayBuffer();
      received++;
      return new Response(null, { status: 204 });
    },
  });
  console.log(server.port);
}

/** Starts this receiver as a subprocess: its port, its pid and how to stop it. */
export async function spawnReceiver(): Promise<{
  port: number;
  pid: number;
  received(): Promise<number>;
  stop(): void;
}> {
  const proc = Bun.spawn([process.execPath, import.meta.path], { stdout: "pipe", stderr: "inherit" });
  const { value } = await proc.stdout.getReader().read();
  const port = Number(new TextDecoder().decode(value).trim());
  return {
    port,
    pid: proc.pid,
    received: async () => Number(await (await fetch(`http://127.0.0.1:${port}/count`)).text()),
    stop: () => proc.kill(),
  };
}
