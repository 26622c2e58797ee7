/**
 * The budgets of the public routes: a Postgres token bucket (`address_buckets`) per route budget and client
 * address, refilled continuously over 60 s, so that a flood from one address cannot starve the API.
 */
import type { Db } from "./db.ts";
import type { BucketState } from "./budget.ts";

/**
 * Takes a token from the bucket of `scope` and `address` (capacity a minute), in one statement. A request that
 * finds the bucket empty writes nothing: a flood of refused requests only reads.
 */
export async function takeAddressToken(db: Db, scope: string, address: string, capacity: number): Promise<BucketState> {
  // The level is the bucket refilled up to the clock; greatest() because the clock is read before a concurrent
  // write's row lock may be waited for (see takeLease in budget.ts): that time counts as none.
  const [row] = await db<{ admitted: number | null; tokens: number | null; elapsed: number | null }[]>`
    with c as (
      select clock_timestamp() as at
    ), taken as (
      insert into address_buckets as ab (scope, address, tokens, updated_at)
      select ${scope}, ${address}, ${capacity}::float8 - 1, c.at from c
      on conflict (scope, address) do update set
        tokens = least(${capacity}::float8,
          ab.tokens + greatest(0, extract(epoch from excluded.updated_at - ab.updated_at)) * ${capacity} / 60.0) - 1,
        updated_at = greatest(ab.updated_at, excluded.updated_at)
      where least(${capacity}::float8,
          ab.tokens + greatest(0, extract(epoch from excluded.updated_at - ab.updated_at)) * ${capacity} / 60.0) >= 1
      returning ab.tokens
    )
    select (select tokens from taken) as admitted,
           ab.tokens, greatest(0, extract(epoch from c.at - ab.updated_at))::float8 as elapsed
    from c left join address_buckets ab on ab.scope = ${scope} and ab.address = ${address}`;
  if (row?.admitted !== null && row?.admitted !== undefined) {
    return { capacity, tokens: row.admitted, admitted: true };
  }
  // Refused: the level as this statement's snapshot saw it (a row another transaction made since counts as empty).
  const level =
    row?.tokens === null || row?.tokens === undefined ? 0 : row.tokens + ((row.elapsed ?? 0) * capacity) / 60;
  return { capacity, tokens: Math.min(capacity, level), admitted: false };
}

/** Forgets the buckets of addresses not seen for `hours` (they would be full again anyway). */
export async function purgeAddressBuckets(db: Db, hours: number): Promise<number> {
  const rows = await db`delete from address_buckets where updated_at < now() - make_interval(hours => ${hours})`;
  return rows.count;
}
