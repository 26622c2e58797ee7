/** A queue's worker that sends email: its job loop (core/job_loop.ts) with a mailer, closed when the queue stops. */
import type { JobWithMetadata } from "pg-boss";
import { type JobLoop, startJobLoop } from "../core/job_loop.ts";
import type { AppContext } from "../core/operation.ts";
import { createMailer, type Mailer } from "./transport.ts";

/** A mail worker: a job loop whose jobs run with the mailer. */
export type MailJobLoop<T extends object> = Omit<JobLoop<T>, "run" | "onStop" | "started"> & {
  run: (mailer: Mailer, job: JobWithMetadata<T>, attempt: { final: boolean }) => Promise<Record<string, unknown>>;
};

/** Starts a mail worker, with `mailer` (tests pass one) or the service's (SMTP, or the outbox folder). */
export async function startMailWorker<T extends object>(
  ctx: AppContext,
  mailer: Mailer | undefined,
  loop: MailJobLoop<T>,
): Promise<void> {
  const sender = mailer ?? createMailer(ctx.config, ctx.log);
  await startJobLoop<T>(ctx, {
    ...loop,
    run: (job, attempt) => loop.run(sender, job, attempt),
    onStop: () => sender.close(),
    started: { transport: sender.kind },
  });
}
