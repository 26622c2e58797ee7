/** A workspace's SMS numbers, which route inbound messages (the CLI's `sms-number` commands). */
import type { Db } from "../core/db.ts";
import { workspaceIdOf } from "../core/workspaces.ts";
import { SmsNumberNotFound, SmsNumberTaken } from "./errors.ts";
import { addSmsNumber, listSmsNumbers, removeSmsNumber, type SmsNumberRow } from "./queries.ts";

/** An E.164 number: `+`, a country code, at most 15 digits. */
export const e164 = /^\+[1-9][0-9]{6,14}$/;

/** Gives `number` to the workspace `slug` (again: no change); another workspace's number is SmsNumberTaken. */
export async function addNumber(db: Db, slug: string, number: string) {
  const workspaceId = await workspaceIdOf(db, slug);
  const { added, ownerId } = await addSmsNumber(db, workspaceId, number);
  if (ownerId !== workspaceId) throw new SmsNumberTaken({ number });
  return { workspace: slug, number, added };
}

/** Takes `number` from the workspace `slug`; SmsNumberNotFound when it does not have it. */
export async function removeNumber(db: Db, slug: string, number: string) {
  const workspaceId = await workspaceIdOf(db, slug);
  if (!(await removeSmsNumber(db, workspaceId, number))) throw new SmsNumberNotFound({ number });
  return { workspace: slug, number, removed: true };
}

/** The numbers of the workspace `slug`. */
export async function listNumbers(db: Db, slug: string): Promise<{ workspace: string; numbers: SmsNumberRow[] }> {
  const workspaceId = await workspaceIdOf(db, slug);
  return { workspace: slug, numbers: await listSmsNumbers(db, workspaceId) };
}
