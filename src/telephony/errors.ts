/** Errors of the telephony group. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** 404: no such SMS thread in the caller's workspace. */
export class SmsThreadNotFound extends TaggedError("SmsThreadNotFound", 404, { threadId: Type.String() }, "No SMS thread with this id in the key's workspace.") {}

/** 409: the recipient texted STOP; nothing more may be sent on the thread. */
export class SmsStopped extends TaggedError(
  "SmsStopped",
  409,
  { threadId: Type.String() },
  "The recipient texted STOP on this thread; nothing was queued. Sending again needs the recipient to opt back in.",
) {}
