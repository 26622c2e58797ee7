/**
 * How one process shares its webhook POSTs out (issue 35: one workspace's dead receivers delayed everyone's), across
 * the dispatcher's batches and the worker's jobs alike: at most `postsPerReceiver` POSTs in flight to one receiver's
 * address (the address and port a POST connects to, whatever URLs or names lead there) and `postsPerWorkspace` for
 * one workspace. A delivery that finds no slot free is not started: it is held back and tried again later
 * (`busyDelayMs`), and nothing waits for a slot. A batch's or a job's deliveries go out in lanes, a group of lanes for
 * each workspace and receiver, started round robin (`fairLanes`), so that slots go one a group before a second.
 */

/** POSTs in flight from this process to one address and port at most (the connections kept to it). */
export const postsPerReceiver = 16;
/** POSTs in flight from this process for one workspace at most, whatever its receivers. */
export const postsPerWorkspace = 32;
/**
 * Milliseconds a delivery held back for want of a slot waits at least, and those a lane's group left after its
 * receiver did not answer wait (by then its breaker may be open). Also how long a POST must have run before its slot
 * is taken as held by a slow receiver rather than a busy one.
 */
export const backOffMs = 1000;

/** The start times (performance.now()) of the POSTs in flight, oldest first, by address and by workspace. */
const byAddress = new Map<string, number[]>();
const byWorkspace = new Map<string, number[]>();

function held(map: Map<string, number[]>, key: string): number[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

function drop(map: Map<string, number[]>, key: string, list: number[], started: number) {
  const i = list.indexOf(started);
  if (i >= 0) list.splice(i, 1);
  if (!list.length && map.get(key) === list) map.delete(key);
}

/**
 * Takes a slot for a POST of `workspaceId`'s to `address`: answers its release (call it once the POST is over), or
 * undefined when the receiver or the workspace has no slot free.
 */
export function takeSlot(workspaceId: string, address: string): (() => void) | undefined {
  const a = held(byAddress, address);
  const w = held(byWorkspace, workspaceId);
  if (a.length >= postsPerReceiver || w.length >= postsPerWorkspace) {
    if (!a.length) byAddress.delete(address);
    if (!w.length) byWorkspace.delete(workspaceId);
    return undefined;
  }
  const started = performance.now();
  a.push(started);
  w.push(started);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    drop(byAddress, address, a, started);
    drop(byWorkspace, workspaceId, w, started);
  };
}

/**
 * Milliseconds after which a delivery that found no slot is tried again: a second while the POSTs holding the slots
 * are young (a busy receiver that answers); once the oldest of them has run a second (a slow or dead receiver), until
 * it must have ended (`timeoutMs` after its start). `now` is performance.now() (tests pass a later one).
 */
export function busyDelayMs(
  workspaceId: string,
  address: string,
  timeoutMs: number,
  now: number = performance.now(),
): number {
  let oldest = now;
  const a = byAddress.get(address);
  const w = byWorkspace.get(workspaceId);
  if (a && a.length >= postsPerReceiver) oldest = Math.min(oldest, a[0]!);
  if (w && w.length >= postsPerWorkspace) oldest = Math.min(oldest, w[0]!);
  if (now - oldest < backOffMs) return backOffMs;
  return Math.max(backOffMs, Math.ceil(oldest + timeoutMs - now));
}

/** When `workspaceId` has no slot free, the milliseconds after which to try again (`busyDelayMs`); else undefined. */
export function workspaceBusyMs(workspaceId: string, timeoutMs: number): number | undefined {
  const w = byWorkspace.get(workspaceId);
  if (!w || w.length < postsPerWorkspace) return undefined;
  return busyDelayMs(workspaceId, "", timeoutMs);
}

/** The workspaces with no slot free now. */
export function busyWorkspaces(): string[] {
  const busy: string[] = [];
  for (const [ws, list] of byWorkspace) if (list.length >= postsPerWorkspace) busy.push(ws);
  return busy;
}

/** The POSTs in flight from this process (tests): how many to `address`, or in all. */
export function postsInFlight(address?: string): number {
  if (address !== undefined) return byAddress.get(address)?.length ?? 0;
  let n = 0;
  for (const list of byAddress.values()) n += list.length;
  return n;
}

/**
 * Works through items in lanes: the items grouped by `groupOf` (each group's items in their order), up to `width`
 * lanes a group, a lane taking its group's next item once `step` is done with its last. `step` answering false stops
 * the group: no lane takes another of its items (they are left to the caller). Lanes start round robin: every
 * group's first lane, the groups of one workspace (`workspaceOf`) between the others', then every second lane, and so
 * on. Settles once every lane has ended.
 */
export async function fairLanes<T>(
  items: T[],
  workspaceOf: (item: T) => string,
  groupOf: (item: T) => string,
  width: number,
  step: (item: T) => Promise<boolean>,
): Promise<void> {
  const groups = new Map<string, T[]>();
  const workspaces = new Map<string, T[][]>();
  for (const item of items) {
    const key = `${workspaceOf(item)} ${groupOf(item)}`;
    let group = groups.get(key);
    if (!group) {
      group = [];
      groups.set(key, group);
      const ws = workspaceOf(item);
      const list = workspaces.get(ws);
      if (list) list.push(group);
      else workspaces.set(ws, [group]);
    }
    group.push(item);
  }
  // Round robin across workspaces: the first group of each, then the second of each...
  const ordered: T[][] = [];
  const lists = [...workspaces.values()];
  for (let i = 0; ordered.length < groups.size; i++)
    for (const list of lists) if (i < list.length) ordered.push(list[i]!);
  const next = ordered.map(() => 0);
  const stopped = ordered.map(() => false);
  const lane = async (g: number) => {
    const group = ordered[g]!;
    while (!stopped[g] && next[g]! < group.length) {
      if (!(await step(group[next[g]!++]!))) stopped[g] = true;
    }
  };
  const lanes: Promise<void>[] = [];
  for (let k = 0; k < width; k++) {
    for (const [g, group] of ordered.entries()) if (k < group.length) lanes.push(lane(g));
  }
  await Promise.all(lanes);
}
