/** The compliance group's operations. */
import { Type } from "@sinclair/typebox";
import { operation } from "../core/operation.ts";
import { factMeaning, BlockProfile, BlockProfilesQuery } from "./schema.ts";
import { factNames, resolveFacts } from "./facts.ts";
import { blockProfileRows } from "./queries.ts";

/** Compliance facts of every block with something recorded. */
export const blockProfiles = operation({
  id: "compliance.blockProfiles",
  group: "compliance",
  method: "GET",
  path: "/compliance/block-profiles",
  summary: "Compliance facts of every block with something recorded.",
  description: [
    "The compliance profile of every block of the workspace that has something recorded: at least one of the " +
      "five facts recorded on the block itself, a history entry, or a revision other than 0. A block that is " +
      "not listed has nothing recorded (its facts are its property's, else `unknown`). Ordered by `blockId` in " +
      "code-point order. `propertyId` restricts the list to one property's blocks; an unknown property gives " +
      "an empty list.",
    "Each fact is `yes`, `no` or `unknown`. `ownFacts` holds what the block records itself (`unknown` where it " +
      "records nothing, never `null`). `facts` holds the effective values: the block's own value (a recorded " +
      "`unknown` included), else the value recorded on its property, else `unknown`; `factSources` says which " +
      "(`own`, `property`, `default`). `history` lists the changes to the block's facts, newest first.",
    "What each fact drives:\n" + factNames.map((name) => `- \`${name}\`: ${factMeaning[name]}`).join("\n"),
  ].join("\n\n"),
  query: BlockProfilesQuery,
  response: Type.Array(BlockProfile),
  conditional: true,
  run: async ({ db, principal, query }) => {
    const rows = await blockProfileRows(db, principal.workspaceId, query.propertyId);
    return rows.map((row) => {
      const { facts, ownFacts, factSources } = resolveFacts(row.ownFacts, row.propertyFacts);
      return {
        blockId: row.blockId,
        facts,
        revision: row.revision,
        policyVersion: row.policyVersion,
        updatedAt: row.updatedAt,
        updatedByUserId: row.updatedByUserId,
        ownFacts,
        factSources,
        history: row.history,
      };
    });
  },
});

/** Every operation of the group. */
export const operations = [blockProfiles];
