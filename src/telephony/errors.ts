/** Errors of the telephony group. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** 404: no such SMS thread in the caller's workspace. */
export class SmsThreadNotFound extends TaggedError(
  "SmsThreadNotFound",
  404,
  { threadId: Type.String() },
  "No SMS thread with this id in the key's workspace.",
) {}

/** 409: the recipient texted STOP; nothing more may be sent on the thread. */
export class SmsStopped extends TaggedError(
  "SmsStopped",
  409,
  { threadId: Type.String() },
  "The recipient texted STOP on this thread; nothing was queued. Sending again needs the recipient to opt back in.",
) {}

/** 409: the number is another workspace's (a number belongs to one workspace at most). */
export class SmsNumberTaken extends TaggedError(
  "SmsNumberTaken",
  409,
  { number: Type.String() },
  "Another workspace has this SMS number; remove it there first.",
) {}

/** 404: the workspace has no such SMS number. */
export class SmsNumberNotFound extends TaggedError(
  "SmsNumberNotFound",
  404,
  { number: Type.String() },
  "The workspace has no such SMS number.",
) {}
