/** The MCP endpoint's own refusals. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** 405: the MCP endpoint is stateless and takes only POST (no SSE stream to open, no session to end). */
export class MethodNotAllowed extends TaggedError("MethodNotAllowed", 405, {
  method: Type.String(),
  allow: Type.Array(Type.String()),
}) {}
