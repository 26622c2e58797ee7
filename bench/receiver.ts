/** A webhook receiver for benchmarks, in a process of its own: answers every request 204; prints its port. */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    await request.arrayBuffer();
    return new Response(null, { status: 204 });
  },
});
console.log(server.port);
