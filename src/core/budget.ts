/** The Postgres token bucket: capacity = the key's budget a minute, refilled continuously over 60 s. */

/** The bucket's state after a request was counted against it. */
export interface BucketState {
  capacity: number;
  /** Tokens left after this request. */
  tokens: number;
  /** Whether this request got a token. */
  admitted: boolean;
}

/** Tokens added per second for a capacity. */
export function refillPerSecond(capacity: number): number {
  return capacity / 60;
}

/** Whole seconds until one token is there again (at least 1). */
export function retryAfterSeconds(b: BucketState): number {
  return Math.max(1, Math.ceil((1 - b.tokens) / refillPerSecond(b.capacity)));
}

/** The IETF RateLimit and RateLimit-Policy fields for a bucket state. */
export function rateLimitHeaders(b: BucketState): Record<string, string> {
  const left = Math.max(0, Math.floor(b.tokens));
  const full = Math.max(0, Math.ceil((b.capacity - b.tokens) / refillPerSecond(b.capacity)));
  return {
    "ratelimit-policy": `"default";q=${b.capacity};w=60`,
    ratelimit: `"default";r=${left};t=${full}`,
  };
}
