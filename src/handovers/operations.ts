/** The handovers group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** A tenancy's move-in and move-out handovers with visits, keys and outstanding items. */
export const forTenancy = operation({
  id: "handovers.forTenancy", group: "handovers", method: "GET", path: "/handovers/tenancies/:tenancyId",
  summary: "A tenancy's move-in and move-out handovers with visits, keys and outstanding items.",
  description: "Declared; not built yet.",
  params: Type.Object({ tenancyId: Id }, { additionalProperties: false }),
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "handovers.forTenancy" });
  },
});

/** Every operation of the group. */
export const operations = [forTenancy];
