/**
 * The daily job that forgets requestId ledger entries older than 30 days (the OpenAPI description keeps them "at
 * least 30 days"), and the public routes buckets of addresses not seen for a day, webhook deliveries older than 30
 * days, and stored agenda days out of their range (src/calendar/queries.ts, storedDaysRange).
 */
import { purgeAddressBuckets } from "./address_budget.ts";
import { purgeLedger } from "./idempotency.ts";
import { purgeWebhookDeliveries } from "../telephony/queries.ts";
import { purgeAgendaDays } from "../calendar/queries.ts";
import { queues } from "./jobs.ts";
import type { AppContext } from "./operation.ts";

/** When the purge runs: 03:17 every day, Europe/London. */
export const ledgerPurgeCron = "17 3 * * *";

/** Schedules the daily purge (an upsert, so every process may call it) and starts its worker. */
export async function startLedgerPurge(ctx: AppContext): Promise<void> {
  await ctx.jobs.ensureQueue(queues.ledgerPurge, {
    retryLimit: 3,
    retryDelay: 60,
    retryBackoff: true,
    heartbeatSeconds: 10,
  });
  const boss = await ctx.jobs.boss();
  await boss.schedule(queues.ledgerPurge, ledgerPurgeCron, {}, { tz: "Europe/London" });
  await boss.work(queues.ledgerPurge, async () => {
    const purged = await purgeLedger(ctx.db, 30);
    const buckets = await purgeAddressBuckets(ctx.db, 24);
    const webhookDeliveries = await purgeWebhookDeliveries(ctx.db, 30);
    const agendaDays = await purgeAgendaDays(ctx.db);
    ctx.log.info("idempotency ledger purged", { purged, addressBuckets: buckets, webhookDeliveries, agendaDays });
    return { purged, addressBuckets: buckets, webhookDeliveries, agendaDays };
  });
}
