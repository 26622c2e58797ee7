/**
 * A process's share of webhook POSTs (src/webhooks/share.ts): slots by receiver address and by workspace, the delay
 * of a delivery that found none, and lanes started round robin across workspaces and receivers.
 */
import { describe, expect, test } from "bun:test";
import {
  backOffMs,
  busyDelayMs,
  fairLanes,
  postsInFlight,
  postsPerReceiver,
  postsPerWorkspace,
  takeSlot,
  workspaceBusyMs,
} from "../../src/webhooks/share.ts";

describe("slots", () => {
  test(`at most ${postsPerReceiver} to one address and ${postsPerWorkspace} for one workspace, held until released`, () => {
    const releases: (() => void)[] = [];
    const take = (ws: string, address: string) => {
      const release = takeSlot(ws, address);
      if (release) releases.push(release);
      return release !== undefined;
    };
    try {
      for (let i = 0; i < postsPerReceiver; i++) expect(take("W1", "10.0.0.1 443")).toBe(true);
      expect(take("W1", "10.0.0.1 443")).toBe(false);
      // Another workspace is refused at that address too: the receiver's limit is the receiver's.
      expect(take("W2", "10.0.0.1 443")).toBe(false);
      expect(postsInFlight("10.0.0.1 443")).toBe(postsPerReceiver);
      // The workspace fills its own share at other addresses, then is refused anywhere...
      for (let i = postsPerReceiver; i < postsPerWorkspace; i++) expect(take("W1", `10.0.0.${i} 443`)).toBe(true);
      expect(take("W1", "10.0.0.200 443")).toBe(false);
      expect(workspaceBusyMs("W1", 10_000)).toBe(backOffMs);
      // ...while another workspace is not.
      expect(workspaceBusyMs("W2", 10_000)).toBeUndefined();
      expect(take("W2", "10.0.0.200 443")).toBe(true);
      // A release (twice is once) frees one slot of both.
      releases[0]!();
      releases[0]!();
      expect(postsInFlight("10.0.0.1 443")).toBe(postsPerReceiver - 1);
      expect(take("W1", "10.0.0.1 443")).toBe(true);
      expect(take("W1", "10.0.0.1 443")).toBe(false);
    } finally {
      for (const release of releases) release();
    }
    expect(postsInFlight()).toBe(0);
  });

  test("a delivery refused a slot waits a second while the POSTs holding it are young, else until the oldest must end", () => {
    // The slots' start times lie between `before` and `after`; the clock is moved on by passing `now`.
    const before = performance.now();
    const releases = Array.from({ length: postsPerReceiver }, () => takeSlot("W3", "10.1.0.1 443")!);
    const after = performance.now();
    try {
      expect(busyDelayMs("W3", "10.1.0.1 443", 5000)).toBe(backOffMs);
      expect(busyDelayMs("W3", "10.1.0.1 443", 5000, before + backOffMs - 1)).toBe(backOffMs);
      // 1.2 s after the oldest began: what is left of its 5 s.
      const now = after + 1200;
      const delay = busyDelayMs("W3", "10.1.0.1 443", 5000, now);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(before + 5000 - now));
      expect(delay).toBeLessThanOrEqual(Math.ceil(after + 5000 - now));
      // Past the oldest one's end: a second again, never less.
      expect(busyDelayMs("W3", "10.1.0.1 443", 5000, after + 4500)).toBe(backOffMs);
    } finally {
      for (const release of releases) release();
    }
  });
});

describe("fair lanes", () => {
  test("start every group's first lane before a second, one workspace's groups between the others'", async () => {
    const items = [
      ...["a1-0", "a1-1", "a1-2"].map((id) => ({ ws: "A", to: "r1", id })),
      ...["a2-0", "a2-1", "a2-2"].map((id) => ({ ws: "A", to: "r2", id })),
      ...["b1-0", "b1-1", "b1-2"].map((id) => ({ ws: "B", to: "r1", id })),
    ];
    const started: string[] = [];
    await fairLanes(
      items,
      (i) => i.ws,
      (i) => i.to,
      2,
      async (i) => {
        started.push(i.id);
        await Bun.sleep(1);
        return true;
      },
    );
    expect(started.slice(0, 6)).toEqual(["a1-0", "b1-0", "a2-0", "a1-1", "b1-1", "a2-1"]);
    expect(started.sort()).toEqual(items.map((i) => i.id).sort());
  });

  test("a step answering false stops its group: no lane takes another of its items; the other groups go on", async () => {
    const items = [
      ...[0, 1, 2, 3, 4].map((n) => ({ to: "dead", n })),
      ...[0, 1, 2, 3, 4].map((n) => ({ to: "live", n })),
    ];
    const started: string[] = [];
    await fairLanes(
      items,
      () => "W",
      (i) => i.to,
      2,
      async (i) => {
        started.push(`${i.to}-${i.n}`);
        await Bun.sleep(1);
        return i.to === "live";
      },
    );
    expect(started.filter((s) => s.startsWith("dead")).sort()).toEqual(["dead-0", "dead-1"]);
    expect(started.filter((s) => s.startsWith("live"))).toHaveLength(5);
  });
});
