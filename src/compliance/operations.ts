/** The compliance group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Compliance facts of every block with something recorded. */
export const blockProfiles = operation({
  id: "compliance.blockProfiles", group: "compliance", method: "GET", path: "/compliance/block-profiles",
  summary: "Compliance facts of every block with something recorded.",
  description: "Declared; not built yet.",
  
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "compliance.blockProfiles" });
  },
});

/** Every operation of the group. */
export const operations = [blockProfiles];
