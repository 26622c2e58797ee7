/** A service process running only the job workers (src/workers.ts), for the crash test: it is killed with SIGKILL mid-send. */
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/log.ts";
import { behindPooler, connect } from "../../src/core/db.ts";
import { Jobs } from "../../src/core/jobs.ts";
import { startWorkers } from "../../src/workers.ts";

const config = loadConfig();
const log = createLogger(config.logLevel);
const db = connect(config.databaseUrl!, { max: 4, pooled: await behindPooler(config.databaseUrl!) });
const jobs = new Jobs(config.databaseUrl!, log);
await startWorkers({ db, config, log, jobs });
process.stdout.write("workers started\n");
