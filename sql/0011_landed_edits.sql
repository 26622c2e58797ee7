-- 0001 and 0007 were edited after they had landed (on their first day, before the runner kept checksums), so a
-- database migrated before an edit kept the older definition. This reapplies each edit, so that every database
-- ends up as the files say; on a database migrated after the edits, nothing here changes anything.

-- 0001, budget leases: rate_buckets.admitted became granted (what the last lease got).
alter table rate_buckets drop column if exists admitted;
alter table rate_buckets add column if not exists granted integer not null default 0;

-- 0001: iso() and ymd() stable like to_char, so that the planner inlines them (immutable, they were not).
alter function iso(timestamptz) stable;
alter function ymd(date) stable;

-- 0007: the partial index that reads stopped SMS threads alone.
create index if not exists sms_threads_stopped on sms_threads (workspace_id, last_message_at desc nulls last, id desc) where stopped;
