/** The contractor-invoices group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Marks a contractor payment as recorded in error and returns the recomputed invoice. */
export const correctPayment = operation({
  id: "contractorInvoices.correctPayment", group: "contractor-invoices", method: "POST", path: "/contractor-payments/:id/correct",
  summary: "Marks a contractor payment as recorded in error and returns the recomputed invoice.",
  description: "Declared; not built yet.",
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "contractorInvoices.correctPayment" });
  },
});

/** Every operation of the group. */
export const operations = [correctPayment];
