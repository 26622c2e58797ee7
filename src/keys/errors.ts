/** The keys group's errors. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** 404: no key set with that id in the caller's workspace. */
export class KeySetNotFound extends TaggedError(
  "KeySetNotFound",
  404,
  { keySetId: Type.String() },
  "No key set with this id in the key's workspace; another workspace's key set answers the same",
) {}
