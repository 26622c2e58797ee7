/** The telephony group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** SMS threads, most recent first. */
export const smsThreads = operation({
  id: "telephony.smsThreads", group: "telephony", method: "GET", path: "/telephony/sms/threads",
  summary: "SMS threads, most recent first.",
  description: "Declared; not built yet.",
  
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "telephony.smsThreads" });
  },
});

/** Sends an SMS on a thread (extension). */
export const sendSms = operation({
  id: "telephony.sendSms", group: "telephony", method: "POST", path: "/telephony/sms/threads/:id/messages",
  summary: "Queues an SMS on a thread.", extension: true, status: 202,
  description: "Declared; not built yet.",
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "telephony.sendSms" });
  },
});

/** Every operation of the group. */
export const operations = [smsThreads, sendSms];
