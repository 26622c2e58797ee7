-- Stored handover rows are kept inline and uncompressed up to a page's worth (~8 KB). A row's JSON is ~2.6 KB at the
-- benchmark's scale, over the default 2 KB threshold, so each store compressed it (pglz) and each stored read, the
-- service's hottest statement, decompressed it: with the threshold at its maximum, a store costs Postgres ~20 µs
-- less and a read ~5 µs less, for about twice the table's size. Rows over ~8 KB are still compressed and moved out
-- of line as before. Only rows stored from now on are affected; older ones are rewritten by their next store.
alter table handover_rows set (toast_tuple_target = 8160);
