/**
 * postgres.js's connection and pool, as patched (patches/postgres@3.4.9.patch), when the server's end of a socket
 * dies: the installed client, configured by the service's `connect`, on the test server through a TCP relay that
 * can reset its connections (as a server killed by `pg_ctl -m immediate stop` does). Unpatched:
 * - a socket that closed while a write waited for the next tick left that write's bytes and a cleared-but-set timer
 *   to the next socket, whose startup message was then never sent: the pool never connected again;
 * - queries sent between the socket's 'error' and its 'close' (code reacting to a failed query runs in between)
 *   were never settled, or later took the answers of other queries;
 * - while the server could not be reached, queries waiting for a connection failed one at a time, each after a
 *   connection attempt of its own;
 * - a transaction whose connection closed (the server's end hung up, as a backend does when Postgres stops) sent
 *   its rollback, or its next statement, to the connection without a socket: the bytes waited for the next tick,
 *   and then `socket.write` on null threw from a setImmediate, an uncaught TypeError that ended the process (issue
 *   35); once the connection had connected again, that statement ran on the new session, outside its transaction,
 *   and was committed; and its statements queued behind the one in flight were never settled.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import net from "node:net";
import { connect, connectTimeoutSeconds, isConnectionError } from "../../src/core/db.ts";
import { testServerUrl } from "../support/server.ts";
import { Jobs } from "../../src/core/jobs.ts";
import { createLogger } from "../../src/core/log.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

/**
 * A TCP relay to `target` whose connections `cut()` resets and `hangUp()` closes (FIN, as a backend that exits
 * closes its socket); `writes()` counts what clients sent, chunk by chunk.
 */
async function startRelay(target: URL) {
  const pairs: { client: net.Socket; server: net.Socket }[] = [];
  let writes = 0;
  const listener = net.createServer((client) => {
    client.on("data", () => writes++);
    const server = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(server);
    server.pipe(client);
    for (const [a, b] of [
      [client, server],
      [server, client],
    ] as const) {
      a.on("error", () => b.destroy());
      a.on("close", () => b.destroy());
    }
    pairs.push({ client, server });
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((listener.address() as net.AddressInfo).port);
  url.searchParams.delete("host"); // the relay is TCP (the embedded server listens on 127.0.0.1 besides its socket)
  return {
    url: url.toString(),
    /** Resets every connection relayed so far. */
    cut() {
      for (const { client, server } of pairs.splice(0)) {
        client.resetAndDestroy();
        server.destroy();
      }
    },
    /** Closes every connection relayed so far, both ends, without a reset: the client reads an end, no error. */
    hangUp() {
      for (const { client, server } of pairs.splice(0)) {
        server.destroy();
        client.destroy();
      }
    },
    writes: () => writes,
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}

const relay = await startRelay(new URL(await testServerUrl()));
const sql = connect(relay.url, { max: 1 });
/** A session of its own, straight to the server: it watches what `sql`'s session runs. */
const observer = connect(await testServerUrl(), { max: 1 });
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await observer.end({ timeout: 1 });
  await relay.close();
});

/** Resolves with `promise`'s outcome, or "pending" after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  let timer: Timer;
  return Promise.race([promise, new Promise<"pending">((r) => (timer = setTimeout(r, ms, "pending")))]).finally(() =>
    clearTimeout(timer),
  );
}

/** The server's process id of `sql`'s session (its only connection, max: 1). */
async function sessionPid(): Promise<number> {
  const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  return row!.pid;
}

/** Waits until the session `pid` is running a statement that starts with `start`, as the server sees it. */
async function running(pid: number, start: string) {
  for (const giveUp = Date.now() + 5000; ; await Bun.sleep(5)) {
    const [row] = await observer<{ query: string }[]>`
      select query from pg_stat_activity where pid = ${pid} and state = 'active'`;
    if (row?.query.startsWith(start)) return;
    if (Date.now() > giveUp) throw new Error(`session ${pid} never ran ${start}`);
  }
}

/**
 * Waits until the server has seen the session `pid` hang up (its backend is gone), then for the next turn of the event
 * loop: the client's end of that connection, closed in the same call as the server's, has been read as closed.
 */
async function ended(pid: number) {
  for (const giveUp = Date.now() + 5000; ; await Bun.sleep(5)) {
    const [row] = await observer<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`;
    if (row!.n === 0) break;
    if (Date.now() > giveUp) throw new Error(`session ${pid} never ended`);
  }
  await nextTurn();
}

/** Waits for the next turn of the event loop: whatever a socket's events and the ticks before it queued has run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** "ok" when the query answers with its own number, "lost" on a connection error, else what went wrong. */
function numbered(i: number): Promise<string> {
  return numberedOn(sql, i);
}

function numberedOn(db: typeof sql, i: number): Promise<string> {
  return db<{ i: number }[]>`select ${i}::int as i`.then(
    ([row]) => (row?.i === i ? "ok" : `query ${i} got the answer of ${row?.i}`),
    (error) => (isConnectionError(error) ? "lost" : `query ${i} failed: ${error}`),
  );
}

const answered = (p: Promise<unknown>) =>
  p.then(
    () => "answered",
    (e) => `failed: ${e?.code ?? e}`,
  );

test("a socket reset while a query's bytes wait for the next tick leaves nothing to the next socket: the pool connects again", async () => {
  // Another connection's data, read in the same turn of the event loop as the reset (between the socket's 'error'
  // and its 'close'): its handler sends a query, whose bytes still wait for the next tick when the close is read.
  // So it goes under load, when requests and a dying database's resets are read in one turn.
  const signals = net.createServer((s) => s.on("data", () => {})).listen(0, "127.0.0.1");
  await new Promise((r) => signals.once("listening", r));
  const accepted = new Promise<net.Socket>((r) => signals.once("connection", r));
  const signal = net.connect((signals.address() as net.AddressInfo).port, "127.0.0.1");
  const peer = await accepted;
  let lost: Promise<unknown> | undefined;
  signal.on("data", () => {
    lost = sql`select 2`.catch((e) => e);
  });
  try {
    for (let round = 0; round < 3; round++) {
      expect(await answered(sql`select 1`)).toBe("answered");
      peer.write("x");
      relay.cut();
      while (!lost) await Bun.sleep(1);
      const outcome = await within(lost, 5000);
      expect(outcome === "pending" ? "pending" : isConnectionError(outcome)).toBe(true);
      lost = undefined;
      await nextTurn(); // the pool has seen the socket close (its 'close' follows the 'error' that failed `lost`)
      expect(await within(answered(sql`select 3`), (connectTimeoutSeconds + 3) * 1000)).toBe("answered");
    }
  } finally {
    signal.destroy();
    signals.close();
  }
});

test("queries sent between a socket's error and its close fail with a connection error; later queries get their own answers", async () => {
  expect(await answered(sql`select 1`)).toBe("answered");
  const pid = await sessionPid();
  const outcomes: Promise<string>[] = [];
  // Code that reacts to a failed query at once (a retry, a rollback) sends its queries before the pool sees the close.
  const slow = sql`select pg_sleep(1)`.catch(() => {
    for (let i = 0; i < 5; i++) outcomes.push(numbered(i));
  });
  await running(pid, "select pg_sleep(1)");
  relay.cut();
  await slow;
  for (let i = 100; i < 105; i++) outcomes.push(numbered(i));
  const settled = await within(Promise.all(outcomes), 5000);
  expect(settled).not.toBe("pending");
  const [sentBetween, later] = [(settled as string[]).slice(0, 5), (settled as string[]).slice(5)];
  // The first went to the failed connection; the others waited for a connection and got one.
  expect(sentBetween[0]).toBe("lost");
  expect(sentBetween.filter((r) => r !== "ok" && r !== "lost")).toEqual([]);
  expect(later).toEqual(["ok", "ok", "ok", "ok", "ok"]);
});

test("when a connection attempt fails and no connection is up, every query waiting for one fails with it at once", async () => {
  // A server that resets every connection, as nothing answers while Postgres is down; it counts the attempts.
  let attempts = 0;
  const refusing = net.createServer((s) => {
    attempts++;
    s.resetAndDestroy();
  });
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  const down = connect(`postgres://postgres@127.0.0.1:${(refusing.address() as net.AddressInfo).port}/postgres`, {
    max: 1,
  });
  try {
    const outcomes = await within(Promise.all(Array.from({ length: 20 }, (_, i) => numberedOn(down, i))), 10_000);
    expect(outcomes).toEqual(Array(20).fill("lost"));
    // Unpatched, each waiting query had an attempt of its own, one after the other, each after the reconnect delay.
    expect(attempts).toBe(1);
  } finally {
    await down.end({ timeout: 1 });
    refusing.close();
  }
});

test("a server that accepts connections but never answers fails the waiting queries after the connect timeout, not never", async () => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((s) => void sockets.push(s.on("error", () => {})));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const hung = connect(`postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/postgres`, {
    max: 1,
  });
  try {
    const started = performance.now();
    const outcomes = await within(
      Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          hung`select ${i}`.then(
            () => "answered",
            (e) => e.code,
          ),
        ),
      ),
      10_000,
    );
    console.log(
      `a silent server: ${JSON.stringify(outcomes)} after ${Math.round(performance.now() - started)} ms (connect timeout ${connectTimeoutSeconds} s)`,
    );
    expect(outcomes).toEqual(Array(5).fill("CONNECT_TIMEOUT"));
  } finally {
    await hung.end({ timeout: 0 });
    for (const s of sockets) s.destroy();
    silent.close();
  }
});

test("pooled (a transaction pooler): a text's second run is one write, not a describe first, and sql.begin runs", async () => {
  // Unpatched, with prepare: false every run of a statement with parameters waited for a describe first (two round
  // trips), and max_pipeline: 0 made sql.begin fail with UNSAFE_TRANSACTION.
  const counting = await startRelay(new URL(await testServerUrl()));
  const db = connect(counting.url, { max: 1, pooled: true });
  try {
    await db`select 1`;
    const before = counting.writes();
    const [a] = await db<{ a: number; j: { n: number } }[]>`select ${1}::int as a, ${'{"n":1}'}::jsonb as j`;
    const first = counting.writes() - before;
    const [b] = await db<{ a: number; j: { n: number } }[]>`select ${2}::int as a, ${'{"n":2}'}::jsonb as j`;
    const second = counting.writes() - before - first;
    expect([a, b]).toEqual([
      { a: 1, j: { n: 1 } },
      { a: 2, j: { n: 2 } },
    ]);
    expect([first, second]).toEqual([2, 1]);
    const [row] = await db.begin(async (tx) => tx<{ a: number }[]>`select ${3}::int as a`);
    expect(row?.a).toBe(3);
  } finally {
    await db.end({ timeout: 1 });
    await counting.close();
  }
});

/** A table of the test's own on the test server, dropped afterwards. */
async function withTable(run: (table: string) => Promise<void>) {
  const table = `connection_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = connect(await testServerUrl(), { max: 1 });
  await admin.unsafe(`create table ${table} (n int)`);
  try {
    await run(table);
  } finally {
    await admin.unsafe(`drop table ${table}`);
    await admin.end({ timeout: 1 });
  }
}

/** Fails the test if `run` lets an uncaught error or an unhandled rejection out of the process meanwhile. */
async function survives(run: () => Promise<void>) {
  const escaped: unknown[] = [];
  const keep = (error: unknown) => void escaped.push(error);
  process.on("uncaughtException", keep);
  process.on("unhandledRejection", keep);
  try {
    await run();
    // A write left for the next tick (setImmediate) has run.
    await nextTurn();
    await nextTurn();
  } finally {
    process.off("uncaughtException", keep);
    process.off("unhandledRejection", keep);
  }
  expect(escaped.map(String)).toEqual([]);
}

test("a transaction whose connection hangs up under its query fails with a connection error; its rollback goes nowhere, and the process lives on", async () => {
  // The red team's crash (issue 35): Postgres stopped under load; one in four runs ended with `TypeError: null is not
  // an object (evaluating 'socket.write')` from nextWrite. The query fails as the socket closes, and the
  // transaction's catch sends `rollback` to its connection, which has no socket until the pool connects it again.
  await survives(async () => {
    for (let round = 0; round < 3; round++) {
      const pid = await sessionPid();
      let statement: Promise<string> | undefined;
      const transaction = sql
        .begin(async (tx) => {
          statement = answered(tx`select pg_sleep(5)`);
          await statement;
        })
        .then(
          () => "committed",
          (e) => (isConnectionError(e) ? "lost" : `failed: ${e}`),
        );
      await running(pid, "select pg_sleep(5)");
      relay.hangUp();
      expect(await within(transaction, 5000)).toBe("lost");
      expect(await statement).toBe("failed: CONNECTION_CLOSED");
      expect(await within(answered(sql`select 1`), 5000)).toBe("answered");
    }
  });
});

test("a transaction's statement made after its connection hung up fails with a connection error, and never runs outside its transaction", async () => {
  await withTable(async (table) => {
    await survives(async () => {
      // The transaction's callback goes on after its connection closed (the transaction itself has already failed).
      let body: Promise<unknown> = Promise.resolve();
      const lost = (e: unknown) => (isConnectionError(e) ? "lost" : `failed: ${e}`);
      let pid = await sessionPid();
      const reconnected = sql
        .begin((tx) => {
          body = (async () => {
            await tx.unsafe(`insert into ${table} values (1)`);
            relay.hangUp();
            await ended(pid);
            // The pool connects the same connection again for another query (max: 1)...
            const other = await within(answered(sql`select 1`), 5000);
            // ...and the transaction's next statement: unpatched, it ran on the new session, and was committed.
            return [other, await answered(tx.unsafe(`insert into ${table} values (2)`))];
          })();
          return body;
        })
        .then(() => "committed", lost);
      expect(await within(reconnected, 5000)).toBe("lost");
      expect(await within(body, 5000)).toEqual(["answered", "failed: CONNECTION_CLOSED"]);
      expect([...(await sql.unsafe(`select n from ${table}`))]).toEqual([]);

      // Made before the connection has a socket again: unpatched, the uncaught TypeError.
      pid = await sessionPid();
      const early = sql
        .begin((tx) => {
          body = (async () => {
            await tx`select 1`;
            relay.hangUp();
            await ended(pid);
            return answered(tx.unsafe(`insert into ${table} values (3)`));
          })();
          return body;
        })
        .then(() => "committed", lost);
      expect(await within(early, 5000)).toBe("lost");
      expect(await within(body, 5000)).toBe("failed: CONNECTION_CLOSED");
      expect(await within(answered(sql`select 1`), 5000)).toBe("answered");
      expect([...(await sql.unsafe(`select n from ${table}`))]).toEqual([]);
    });
  });
});

test("a transaction's statements queued behind the one in flight fail with a connection error when it hangs up, instead of never", async () => {
  await survives(async () => {
    const pid = await sessionPid();
    let queued: Promise<string>[] = [];
    const transaction = sql
      .begin(async (tx) => {
        // A statement with parameters is described first: the connection takes nothing more until it answers, so
        // the next ones wait in the transaction's own queue.
        const first = answered(tx`select pg_sleep(${5})`);
        queued = [answered(tx`select ${1}::int`), answered(tx`select ${2}::int`)];
        await first;
      })
      .catch((e) => e);
    await running(pid, "select pg_sleep($1)");
    relay.hangUp();
    expect(isConnectionError(await within(transaction, 5000))).toBe(true);
    expect(await within(Promise.all(queued), 2000)).toEqual(["failed: CONNECTION_CLOSED", "failed: CONNECTION_CLOSED"]);
    expect(await within(answered(sql`select 1`), 5000)).toBe("answered");
  });
});

test("a reserved connection's query made after it hung up fails with a connection error, not an uncaught TypeError", async () => {
  // sql.reserve()'s sql sends to its connection whatever state it is in: the same null socket as a transaction's.
  await survives(async () => {
    const pid = await sessionPid();
    const reserved = await sql.reserve();
    try {
      expect(await answered(reserved`select 1`)).toBe("answered");
      relay.hangUp();
      await ended(pid);
      expect(await within(answered(reserved`select 2`), 5000)).toBe("failed: CONNECTION_CLOSED");
    } finally {
      reserved.release();
    }
    expect(await within(answered(sql`select 3`), 5000)).toBe("answered");
  });
});

test("pg-boss's driver's error when the server hangs up during its start counts as a connection error (the workers' start then tries again)", async () => {
  // node-postgres's errors carry no code. Seen in the outage test: Postgres stopped while the workers' thread started
  // its job queue, and "workers: Connection terminated unexpectedly" ended the service with exit code 2.
  const hangingUp = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => hangingUp.listen(0, "127.0.0.1", resolve));
  const jobs = new Jobs(
    `postgres://postgres@127.0.0.1:${(hangingUp.address() as net.AddressInfo).port}/postgres`,
    createLogger("error"),
  );
  try {
    const error = await jobs.boss().then(
      () => "started",
      (e: unknown) => e,
    );
    expect(String((error as Error)?.message)).toBe("Connection terminated unexpectedly");
    expect(isConnectionError(error)).toBe(true);
  } finally {
    await jobs.stop(0).catch(() => {});
    hangingUp.close();
  }
});
