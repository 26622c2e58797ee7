/** The log line of a job queue error carries its message, whatever shape pg-boss reports it in. */
import { expect, setDefaultTimeout, test } from "bun:test";
import { jobErrorFields } from "../../src/core/jobs.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

test("an Error gives its message and code", () => {
  const error = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  expect(jobErrorFields(error)).toEqual({ error: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" });
});

test("a plain object as pg-boss's workers emit it gives its message, queue and worker, not [object Object]", () => {
  const cause = Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
  // manager.js: this.emit(events.error, { ...err, message: err.message, stack: err.stack, queue, worker })
  const emitted = { ...cause, message: cause.message, stack: cause.stack, queue: "invite-email", worker: "w-1" };
  expect(String(emitted)).toBe("[object Object]");
  expect(jobErrorFields(emitted)).toEqual({
    error: "Connection terminated unexpectedly",
    code: "57P01",
    queue: "invite-email",
    worker: "w-1",
  });
});

test("an AggregateError (every address of a host refused) gives the messages of its errors", () => {
  const error = new AggregateError(
    [new Error("connect ECONNREFUSED ::1:5432"), new Error("connect ECONNREFUSED 127.0.0.1:5432")],
    "",
  );
  expect(jobErrorFields(error).error).toBe("connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432");
});

test("anything else is described without throwing", () => {
  const circular: Record<string, unknown> = { reason: "x" };
  circular.self = circular;
  expect(jobErrorFields("boom")).toEqual({ error: "boom" });
  expect(jobErrorFields({ reason: "x" })).toEqual({ error: '{"reason":"x"}' });
  expect(jobErrorFields(circular)).toEqual({ error: "an object with the keys reason, self" });
  expect(jobErrorFields(undefined)).toEqual({ error: "undefined" });
});
