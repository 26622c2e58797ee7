/** The contractor-invoices group's own errors. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** 404: no payment with that id in the caller's workspace. */
export class PaymentNotFound extends TaggedError(
  "PaymentNotFound",
  404,
  { paymentId: Type.String() },
  "No contractor payment with this id in the key's workspace. Nothing was changed.",
) {}

/** 409: the payment was already marked as recorded in error. */
export class PaymentAlreadyCorrected extends TaggedError(
  "PaymentAlreadyCorrected",
  409,
  {
    paymentId: Type.String(),
    correctedAt: Type.String({ description: "When it was corrected, RFC 3339 UTC with milliseconds." }),
  },
  "The payment was already marked as recorded in error (at `correctedAt`). Nothing was changed.",
) {}
