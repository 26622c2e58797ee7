-- The shape of a stored handover row: the version of the computation that made it (rowShape in
-- src/handovers/row.ts, raised whenever row.ts, outstanding.ts or the row's schema change what a row holds). The
-- service serves only rows of its own shape; a row of another shape is computed again and stored over, so a
-- deploy that changes the computation needs no migration that marks the stored rows. A marked row keeps its
-- shape (row_json is null: never served). The rows stored before this column have none, and are computed again
-- once. Shape 1 is the computation of the release before it, whose processes (during a rolling deploy) store rows
-- without touching the column: whatever shape such a row keeps, its content is shape 1's.
alter table handover_rows add column shape integer;
