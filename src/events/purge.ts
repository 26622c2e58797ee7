/** The daily job that deletes events older than EVENTS_RETENTION_DAYS (30 by default). */
import { startDailyJob } from "../core/daily_job.ts";
import { queues } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { purgeEvents } from "./queries.ts";

/** When the purge runs: 03:41 every day, Europe/London. */
export const eventsPurgeCron = "41 3 * * *";

/** Schedules the daily purge (an upsert, so every process may call it) and starts its worker. */
export function startEventsPurge(ctx: AppContext): Promise<void> {
  const days = ctx.config.eventsRetentionDays;
  return startDailyJob(ctx, {
    queue: queues.eventsPurge,
    cron: eventsPurgeCron,
    done: "events purged",
    run: async () => ({ purged: await purgeEvents(ctx.db, days), days }),
  });
}
