/** The keys group's SQL. */
import type { Db } from "../core/db.ts";
import type { KeySetReports } from "./schema.ts";

/** A key set's reports, newest first, or undefined when the key set is not in this workspace. */
export async function keySetReports(db: Db, workspaceId: string, keySetId: string): Promise<KeySetReports | undefined> {
  const [row] = await db<{ reports: KeySetReports }[]>`
    select json_build_object(
      'keySetId', s.id,
      'notWorking', exists (
        select 1 from key_reports r
        where r.workspace_id = s.workspace_id and r.key_set_id = s.id and r.cleared_at is null),
      'reports', coalesce((
        select json_agg(json_build_object(
          'id', r.id, 'keySetId', r.key_set_id, 'note', r.note,
          'source', json_build_object('kind', r.source_kind, 'id', r.source_id, 'label', r.source_label),
          'reportedBy', r.reported_by, 'reportedAt', iso(r.reported_at),
          'cleared', case when r.cleared_at is null then null
                          else json_build_object('note', r.cleared_note, 'by', r.cleared_by,
                               'at', iso(r.cleared_at)) end)
          order by r.reported_at desc, r.id collate "C" desc)
        from key_reports r
        where r.workspace_id = s.workspace_id and r.key_set_id = s.id), '[]')
    ) as reports
    from key_sets s
    where s.workspace_id = ${workspaceId} and s.id = ${keySetId}`;
  return row?.reports;
}
