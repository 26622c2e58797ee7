/**
 * The daily job that forgets requestId ledger entries older than 30 days (the OpenAPI description keeps them "at
 * least 30 days"), and the public routes buckets of addresses not seen for a day, webhook deliveries older than 30
 * days, and stored agenda days out of their range (src/calendar/queries.ts, storedDaysRange). It lives beside
 * `workers.ts`, not in `core/`, because it gathers features' purges; a feature's purge is added to `run`.
 */
import { purgeAddressBuckets } from "./core/address_budget.ts";
import { startDailyJob } from "./core/daily_job.ts";
import { purgeLedger } from "./core/idempotency.ts";
import { queues } from "./core/jobs.ts";
import type { AppContext } from "./core/operation.ts";
import { purgeWebhookDeliveries } from "./telephony/queries.ts";
import { purgeAgendaDays } from "./calendar/queries.ts";

/** When the purge runs: 03:17 every day, Europe/London. */
export const ledgerPurgeCron = "17 3 * * *";

/** Schedules the daily purge (an upsert, so every process may call it) and starts its worker. */
export function startLedgerPurge(ctx: AppContext): Promise<void> {
  return startDailyJob(ctx, {
    queue: queues.ledgerPurge,
    cron: ledgerPurgeCron,
    done: "idempotency ledger purged",
    run: async () => ({
      purged: await purgeLedger(ctx.db, 30),
      addressBuckets: await purgeAddressBuckets(ctx.db, 24),
      webhookDeliveries: await purgeWebhookDeliveries(ctx.db, 30),
      agendaDays: await purgeAgendaDays(ctx.db),
    }),
  });
}
