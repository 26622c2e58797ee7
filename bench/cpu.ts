/**
 * CPU time of the service and of the Postgres server processes, read from /proc (Linux, same machine): the
 * benchmark divides it by the requests of a scenario's measured window to print CPU a request.
 */
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks a second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux). */
const ticksPerSecond = (() => {
  const out = Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim();
  return Number(out) > 0 ? Number(out) : 100;
})();

/** User + system CPU of a process so far, in µs; null when it cannot be read. */
export function processCpuMicros(pid: number): number | null {
  try {
    // The command name may hold spaces: the fields start after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
  } catch {
    return null;
  }
}

/**
 * CPU of a single-threaded process (a Postgres backend) so far, in µs, to the nanosecond: /proc/<pid>/schedstat's time
 * on a CPU (of its main thread: every thread of a Postgres backend). /proc/<pid>/stat counts in clock ticks (10 ms),
 * a few percent of a short profile. Falls back to processCpuMicros where schedstat is missing.
 */
export function backendCpuMicros(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1000;
  } catch {
    return processCpuMicros(pid);
  }
}

/** The pids of the Postgres server processes this machine shows (none for a server elsewhere). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").startsWith("postgres")) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A CPU sample of the service and of Postgres; `since` gives what each used after an earlier sample. */
export interface CpuSample {
  service: number | null;
  postgres: Map<number, number>;
}

export function sampleCpu(servicePid: number): CpuSample {
  const postgres = new Map<number, number>();
  for (const pid of postgresPids()) {
    const us = processCpuMicros(pid);
    if (us !== null) postgres.set(pid, us);
  }
  return { service: processCpuMicros(servicePid), postgres };
}

/** CPU µs a request between two samples: the service's, and Postgres's (processes alive at both samples; backends started in between count from zero). */
export function cpuPerRequest(
  before: CpuSample,
  after: CpuSample,
  requests: number,
): { serviceMicros: number | null; postgresMicros: number | null } {
  if (requests <= 0) return { serviceMicros: null, postgresMicros: null };
  const service =
    before.service !== null && after.service !== null ? (after.service - before.service) / requests : null;
  let postgres = 0;
  for (const [pid, us] of after.postgres) postgres += us - (before.postgres.get(pid) ?? 0);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    serviceMicros: service === null ? null : round(service),
    postgresMicros: after.postgres.size ? round(postgres / requests) : null,
  };
}
