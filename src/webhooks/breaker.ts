/**
 * The circuit breaker of a workspace's receiver (issue 35; its state in `event_delivery_breakers`, sql/0028): a
 * receiver whose attempts get no answer (timed out, refused, reset) 3 times in a row is set aside, its deliveries
 * held back, pending and unattempted, until its cool-down ends (30 s, doubled at each opening in a row, at most an
 * hour); then one attempt probes it: an answer closes the breaker, none opens it again. Any answer (whatever its
 * status) closes it. A receiver is a URL's origin, per workspace: another workspace's failures never set yours aside.
 */
import type { BreakerRule, Breakers } from "./queries.ts";

/** The rule of every breaker. */
export const breakerRule: BreakerRule = {
  failuresToOpen: 3,
  firstCoolDownSeconds: 30,
  longestCoolDownSeconds: 3600,
};

const origins = new Map<string, string>();

/** The receiver of a webhook URL: its origin (scheme, host and port), as the breakers name it. */
export function receiverOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    origin = URL.parse(url)?.origin ?? url;
    if (origins.size >= 10_000) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

/** What a breaker lets an attempt do. */
export type BreakerSays = { kind: "go" } | { kind: "wait"; seconds: number } | { kind: "probe" };

/**
 * What the breaker lets an attempt to `receiver` do: go (closed, or no breaker), wait `seconds` (open, or another
 * process's probe in flight), or probe (half open: its cool-down is over).
 */
export function breakerSays(breakers: Breakers | undefined, receiver: string): BreakerSays {
  const seconds = breakers?.get(receiver);
  if (seconds === undefined || seconds === null) return { kind: "go" };
  if (seconds > 0) return { kind: "wait", seconds };
  return { kind: "probe" };
}
