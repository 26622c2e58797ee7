/** The contacts group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Creates a company contact; a retry with the same requestId replays the first answer. */
export const createCompany = operation({
  id: "contacts.createCompany", group: "contacts", method: "POST", path: "/companies",
  summary: "Creates a company contact; a retry with the same requestId replays the first answer.",
  description: "Declared; not built yet.",
  
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "contacts.createCompany" });
  },
});

/** Every operation of the group. */
export const operations = [createCompany];
