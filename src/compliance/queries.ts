/** The compliance group's SQL. */
import type { Db } from "../core/db.ts";
import { factNames } from "./facts.ts";

/** A block with something recorded, as stored: own and property facts raw, history in response shape. */
export interface BlockProfileRow {
  blockId: string;
  ownFacts: unknown;
  propertyFacts: unknown;
  revision: number;
  policyVersion: string;
  updatedAt: string | null;
  updatedByUserId: string | null;
  history: {
    id: string;
    kind: string;
    detail: string;
    actorUserId: string | null;
    policyVersion: string;
    createdAt: string;
  }[];
}

/**
 * The blocks of a workspace that record something (one of the five facts, a history entry, or a revision other
 * than 0), optionally of one property, ordered by id in code-point order, each with its history newest first.
 */
export async function blockProfileRows(db: Db, workspaceId: string, propertyId?: string): Promise<BlockProfileRow[]> {
  return db<BlockProfileRow[]>`
    select b.id as block_id, b.facts as own_facts, p.facts as property_facts, b.revision::float8 as revision,
           b.policy_version, iso(b.updated_at) as updated_at, b.updated_by_user_id,
           coalesce(h.history, '[]'::json) as history
    from blocks b
    join properties p on p.workspace_id = b.workspace_id and p.id = b.property_id
    left join lateral (
      select json_agg(json_build_object(
               'id', x.id, 'kind', x.kind, 'detail', x.detail, 'actorUserId', x.actor_user_id,
               'policyVersion', x.policy_version, 'createdAt', iso(x.created_at))
             order by x.created_at desc, x.id collate "C" desc) as history
      from block_fact_history x
      where x.workspace_id = b.workspace_id and x.block_id = b.id
    ) h on true
    where b.workspace_id = ${workspaceId}
      ${propertyId === undefined ? db`` : db`and b.property_id = ${propertyId}`}
      and (b.revision <> 0 or h.history is not null
           or exists (select 1 from jsonb_each(case when jsonb_typeof(b.facts) = 'object'
               then b.facts else '{}'::jsonb end) f
                      where f.key = any(${factNames as unknown as string[]}::text[])
                        and f.value in ('"yes"'::jsonb, '"no"'::jsonb, '"unknown"'::jsonb)))
    order by b.id collate "C"`;
}
