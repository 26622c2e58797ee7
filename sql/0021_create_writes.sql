-- Cheaper writes of the append-heavy tables a company creation fills (issue 19: a creation's Postgres CPU at most
-- 500 µs). Measured with the creation's statement in a loop, its backend's CPU alternated with main's in one process
-- (bench/README.md, "Company creation: the workspace keys and the ident check").
--
-- The foreign keys to workspaces: each insert queued a check that ran a query locking the workspace row FOR KEY SHARE
-- (a WAL record a creation, and under concurrent creations of one workspace a new multixact for nearly each one: all
-- of a workspace's writers lock the same row), ~45-80 µs of Postgres a creation. The service writes these rows only
-- with the workspace id of the request's key, which the key check read from the workspace row, or of the workspace an
-- operator's command named and found (the import, the CLI); no code path deletes a workspace (`grep -rn "delete from
-- workspaces" src` is empty), so the cascade served nothing. Deleting a workspace by hand must now delete these
-- tables' rows itself (ARCHITECTURE.md, "Integrity by construction"). Keys to contacts stay: they check that a contact
-- a request names exists.
alter table contacts drop constraint contacts_workspace_id_fkey;
alter table activity_log drop constraint activity_log_workspace_id_fkey;
alter table events drop constraint events_workspace_id_fkey;
alter table idempotency_ledger drop constraint idempotency_ledger_workspace_id_fkey;

-- The ident domain's check, the same rule written so that it costs ~0.3-0.5 µs a value instead of ~7: Postgres's regex
-- engine expands a bounded repetition ({1,64}) into 64 copies of the class, and its matcher builds its states afresh
-- at every call; an unbounded one (+) is one state. Every ident column of every write pays it (a creation checks
-- eight: ~6% of its Postgres CPU). One or more of the characters, at most 64 of them: exactly the old
-- rule, so the rows it admitted need no second look (not valid: an ALTER DOMAIN that validates would read every table
-- with an ident column, the whole database, holding off its writes).
alter domain ident drop constraint ident_check;
alter domain ident add constraint ident_check check (value ~ '^[A-Za-z0-9_-]+$' and length(value) <= 64) not valid;
