/** A separate process running only the SMS worker, for the test that kills it mid-job (DATABASE_URL and SMS_* from the environment). */
import { loadConfig } from "../../src/config.ts";
import { behindPooler, connect } from "../../src/core/db.ts";
import { Jobs } from "../../src/core/jobs.ts";
import { createLogger } from "../../src/core/log.ts";
import { startSmsWorker } from "../../src/telephony/worker.ts";

const config = loadConfig();
const log = createLogger(config.logLevel);
const db = connect(config.databaseUrl!, { max: 4, pooled: await behindPooler(config.databaseUrl!) });
const jobs = new Jobs(config.databaseUrl!, log);
await startSmsWorker({ db, config, log, jobs });
process.stdout.write("ready\n");
