/** A webhook receiver that accepts connections and never answers: what a dead receiver looks like to the service. */

/** A dead receiver: its port, the connections open now, the most open at once, all it accepted, and its stop. */
export interface DeadReceiver {
  port: number;
  open: number;
  most: number;
  accepted: number;
  stop(): void;
}

/** Starts a dead receiver on 127.0.0.1 at a free port. */
export function deadReceiver(): DeadReceiver {
  const r: DeadReceiver = { port: 0, open: 0, most: 0, accepted: 0, stop: () => server.stop(true) };
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        r.open++;
        r.accepted++;
        r.most = Math.max(r.most, r.open);
      },
      data() {},
      close() {
        r.open--;
      },
      error() {},
    },
  });
  r.port = server.port;
  return r;
}
