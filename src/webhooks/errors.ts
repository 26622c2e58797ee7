/** The refusals of the webhook subscription commands. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** A subscription URL that is not https, or names or resolves to an address the service must not call (SSRF). */
export class WebhookUrlRefused extends TaggedError("WebhookUrlRefused", 400, {
  url: Type.String(),
  reason: Type.String(),
}) {}

/** Event types no declaration has. */
export class WebhookEventsUnknown extends TaggedError("WebhookEventsUnknown", 400, {
  unknown: Type.Array(Type.String()),
  known: Type.Array(Type.String()),
}) {}

/** No subscription with that id. */
export class WebhookNotFound extends TaggedError("WebhookNotFound", 404, { id: Type.String() }) {}
