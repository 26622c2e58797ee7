/**
 * postgres.js's `COPY … FROM STDIN` writable, as patched (patches/postgres@3.4.9.patch), when the server refuses a
 * row: the installed client, configured by the service's `connect`, on the test database. Unpatched, a refusal that
 * arrived after the stream's end (its CopyDone) was sent never settled the writable, so a pipeline into it (and a
 * transaction around it) waited forever, holding its connection (porsager/postgres#1173).
 */
import { afterAll, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { connect } from "../../src/core/db.ts";
import { harness } from "../support/harness.ts";
import { throughPgBouncer } from "../support/database.ts";

const h = await harness();
// One connection: what the failed COPY leaves on it is what the next query meets.
const sql = connect(h.database.url, { max: 1, pooled: throughPgBouncer });
afterAll(() => sql.end({ timeout: 1 }));

/** Resolves with `promise`'s outcome, or "pending" after `ms` (a hang fails the test with a clear value). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  let timer: Timer;
  return Promise.race([promise, new Promise<"pending">((r) => (timer = setTimeout(r, ms, "pending")))]).finally(() =>
    clearTimeout(timer),
  );
}

/** COPYs `lines` into a temporary table whose `n` must be positive, in a transaction; the outcome as text. */
function copyInTransaction(lines: Iterable<string>): Promise<string> {
  return sql
    .begin(async (tx) => {
      await tx`create temp table copied (n int check (n > 0), note text) on commit drop`;
      await tx`insert into copied values (1, 'before the copy')`;
      const writable = await tx`copy copied from stdin`.writable();
      await pipeline(Readable.from(lines), writable);
      return "copied";
    })
    .then(
      (outcome) => outcome,
      (error) => `refused: ${(error as { code?: string }).code} ${(error as Error).message}`,
    );
}

/** The connection answers, outside any transaction (an aborted one would refuse every query). */
async function connectionState() {
  const [row] = await sql<{ one: number; inTransaction: boolean }[]>`
    select 1 as one, pg_current_xact_id_if_assigned() is not null as in_transaction`;
  return row;
}

test("a row refused after the whole stream was sent rejects the pipeline with the server's error; the transaction rolls back", async () => {
  const outcome = await within(copyInTransaction(["1\ta\n", "-1\tb\n", "2\tc\n"]), 10_000);
  expect(outcome).toMatch(/^refused: 23514 .*violates check constraint "copied_n_check"/);
  expect(await connectionState()).toEqual({ one: 1, inTransaction: false });
});

test("a row refused while the stream is still being sent rejects it too", async () => {
  function* lines() {
    for (let chunk = 0; chunk < 200; chunk++) {
      let text = "";
      for (let i = 0; i < 2000; i++) text += `${chunk === 1 && i === 0 ? -1 : 1}\ta line long enough to fill buffers\n`;
      yield text;
    }
  }
  const outcome = await within(copyInTransaction(lines()), 20_000);
  expect(outcome).toMatch(/^refused: 23514 /);
  expect(await connectionState()).toEqual({ one: 1, inTransaction: false });
});

test("a value of the wrong type is refused the same way, and a good COPY on the same connection still works", async () => {
  expect(await within(copyInTransaction(["1\ta\n", "not a number\tb\n"]), 10_000)).toMatch(/^refused: 22P02 /);
  expect(await within(copyInTransaction(["1\ta\n", "2\tb\n"]), 10_000)).toBe("copied");
});
