/**
 * postgres.js's queue, as patched (patches/postgres@3.4.9.patch): the pool keeps its connections in these
 * queues, and under sustained load its `busy` queue never empties. Unpatched, its array grew by a slot a query
 * and remove() scanned it from the start, so CPU per query grew with every query served.
 */
import { expect, test } from "bun:test";
import { dirname, join } from "node:path";

type Queue<T> = { length: number; capacity: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };
// The queue module the installed client (the one the service imports) loads.
const { default: Queue } = (await import(join(dirname(Bun.resolveSync("postgres", import.meta.dir)), "queue.js"))) as {
  default: <T>(initial?: T[]) => Queue<T>;
};

test("first in, first out; remove takes an item out wherever it is; length counts what is left", () => {
  const q = Queue<string>(["a"]);
  q.push("b");
  q.push("c");
  q.push("d");
  expect(q.shift()).toBe("a");
  expect(q.remove("c")).toBe("c");
  expect(q.remove("a")).toBeNull(); // already taken
  expect(q.remove("x")).toBeNull();
  expect(q.length).toBe(2);
  expect([q.shift(), q.shift()]).toEqual(["b", "d"]);
  expect(q.length).toBe(0);
  q.push("e");
  expect(q.shift()).toBe("e");
});

test("a queue that never empties keeps a bounded array, and answers as a plain list would across the compactions", () => {
  // The pool's busy queue under load: connections are taken (shift), moved (remove) and put back (push),
  // and some connection is always in it. `model` is the same queue as a plain array.
  const q = Queue<number>();
  const model: number[] = [];
  for (const c of [0, 1, 2, 3]) {
    q.push(c);
    model.push(c);
  }
  let largest = 0;
  for (let i = 0; i < 100_000; i++) {
    const c = q.shift()!;
    expect(c).toBe(model.shift()!);
    if (i % 3 === 0) {
      const other = model[i % model.length]!;
      expect(q.remove(other)).toBe(other);
      model.splice(model.indexOf(other), 1);
      q.push(other);
      model.push(other);
    }
    q.push(c);
    model.push(c);
    largest = Math.max(largest, q.capacity);
    expect(q.length).toBe(model.length);
  }
  // Unpatched, the array held a slot for each of the 100,000 takes.
  expect(largest).toBeLessThanOrEqual(256);
  while (model.length) expect(q.shift()).toBe(model.shift()!);
  expect(q.length).toBe(0);
});
