/** The job workers running in the service process; each feature adds its own here. */
import type { AppContext } from "./core/operation.ts";
import { startLedgerPurge } from "./ledger_purge.ts";
import { startInviteEmailWorker } from "./maintenance_pro/invite_email_worker.ts";
import { startSmsWorker } from "./telephony/worker.ts";
import { startEventsPurge } from "./events/purge.ts";
import { startWebhookWorkers } from "./webhooks/deliver.ts";
import { startTenantLinkWorker } from "./maintenance_pro/tenant_link.ts";
import { startClockEventsWorker } from "./maintenance_pro/clock_events_worker.ts";
import { startContractorLinkWorker } from "./maintenance_pro/contractor_link.ts";

/** A feature's workers: started with the service, stopped by the job queue's graceful stop. */
export type WorkerStarter = (ctx: AppContext) => Promise<void>;

/** Every feature's workers. */
export const workerStarters: WorkerStarter[] = [
  startLedgerPurge,
  (ctx) => startInviteEmailWorker(ctx),
  (ctx) => startSmsWorker(ctx),
  startEventsPurge,
  startWebhookWorkers,
  startClockEventsWorker,
  (ctx) => startTenantLinkWorker(ctx),
  (ctx) => startContractorLinkWorker(ctx),
];

/** Starts every worker. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  for (const start of workerStarters) await start(ctx);
}
