/** What every agency write of a repair or a works order records besides itself: its activity entry and its events. */
import type { Static, TSchema } from "@sinclair/typebox";
import { recordActivity } from "../core/activity.ts";
import type { Principal } from "../core/auth.ts";
import type { Tx } from "../core/db.ts";
import type { EventType } from "../events/event_type.ts";
import { keyActor, recordEvent } from "../events/record.ts";

/** A written resource as its activity entry names it. */
interface Subject {
  id: string;
  reference: string | null;
  revision: number;
}

/**
 * Records the write's activity entry (`maintenance-pro.<action>`, its reference and revision with `detail`) and each
 * of `events` with the resource as their data, by the key of `principal`, in the writer's transaction.
 */
export async function recordKeyWrite<S extends TSchema>(
  tx: Tx,
  principal: Principal,
  requestId: string,
  write: {
    action: string;
    subjectKind: string;
    subject: Static<S> & Subject;
    detail: Record<string, unknown>;
    events: readonly EventType<S>[];
  },
): Promise<void> {
  await recordActivity(tx, {
    workspaceId: principal.workspaceId,
    keyId: principal.keyId,
    userId: principal.createdByUserId,
    action: `maintenance-pro.${write.action}`,
    subjectKind: write.subjectKind,
    subjectId: write.subject.id,
    detail: { reference: write.subject.reference, revision: write.subject.revision, ...write.detail },
  });
  for (const type of write.events) {
    await recordEvent(tx, type, {
      workspaceId: principal.workspaceId,
      subjectId: write.subject.id,
      data: write.subject,
      requestId,
      actor: keyActor(principal),
    });
  }
}
