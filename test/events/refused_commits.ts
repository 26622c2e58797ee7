/** Commits made to fail on purpose: a write whose event is of a refused type fails at commit, after its statements. */
import { afterEach, beforeAll } from "bun:test";
import type { Db } from "../../src/core/db.ts";

/**
 * Installs, for the calling test file, a deferred trigger that refuses at commit any event of a type listed in
 * `events_refused` (emptied after each test). Answers `refuse(type)` and `allow()`.
 */
export function refusedCommits(db: Db) {
  beforeAll(async () => {
    await db.unsafe(`
      create table events_refused (type text primary key);
      create function events_refuse() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from events_refused r where r.type = new.type) then
          raise exception 'commit refused for %', new.type;
        end if;
        return null;
      end $$;
      create constraint trigger events_refuse after insert on events deferrable initially deferred
        for each row execute function events_refuse();`);
  });
  const allow = () => db`delete from events_refused`.then(() => undefined);
  afterEach(allow);
  return {
    /** Makes the commit of every write recording `type` fail. */
    refuse: (type: string) => db`insert into events_refused values (${type})`.then(() => undefined),
    /** Lets every commit through again. */
    allow,
  };
}
