/** The benchmark's scenarios: what each request is, drawn at random from the seeded workspace. */
import type { LoadPools } from "./seed.ts";

/** A scenario's name. */
export type ScenarioName =
  | "handoverFirst"
  | "handover"
  | "handoverConditional"
  | "agenda"
  | "duplicateCheck"
  | "createCompany";

/** One scenario: its label in the table, its connections, and how to make a request. */
export interface Scenario {
  name: ScenarioName;
  label: string;
  connections: number;
  /** Sends one request per tenancy instead of running for a duration (no warm-up). */
  oncePerTenancy?: boolean;
  /** The pgbench baseline runs right before and right after this scenario. */
  baselineAround?: boolean;
  /** Its requests carry If-None-Match: the tenancies' ETags are collected before it runs (bench/etags.ts). */
  conditional?: boolean;
  /** The status every answer must have; any 2xx when unset. Another status counts as unexpected (a failure). */
  expectStatus?: number;
}

/** The scenarios of issue 9, in the order they run. */
export const scenarios: readonly Scenario[] = [
  // Each tenancy's first read computes its row and stores it (sql/0008); the next scenario reads stored rows.
  { name: "handoverFirst", label: "GET /handovers/tenancies/{id}, first reads", connections: 64, oncePerTenancy: true },
  { name: "handover", label: "GET /handovers/tenancies/{id}", connections: 64, baselineAround: true },
  // A poller re-reading unchanged rows: each request names the row's current ETag, so every answer is a 304.
  {
    name: "handoverConditional",
    label: "GET /handovers/tenancies/{id}, If-None-Match (304)",
    connections: 64,
    conditional: true,
    expectStatus: 304,
  },
  { name: "agenda", label: "GET /calendar/agenda (a week, staff)", connections: 64 },
  { name: "duplicateCheck", label: "POST /contacts/duplicate-check", connections: 64 },
  { name: "createCompany", label: "POST /companies (fresh requestId)", connections: 32 },
];

/** How many answers a scenario did not expect: not `expectStatus` when it is set, else not a 2xx. */
export function unexpectedAnswers(statusCounts: Record<string, number>, expectStatus: number | undefined): number {
  const expected = (status: string) =>
    expectStatus === undefined ? status.startsWith("2") : status === String(expectStatus);
  return Object.entries(statusCounts).reduce((sum, [status, n]) => sum + (expected(status) ? 0 : n), 0);
}

/** A request to send. */
export interface BenchRequest {
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** Headers besides the key and content-type every request carries (no tab or line break in them). */
  headers?: Record<string, string>;
}

const day = 86_400_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const any = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** A request factory for a scenario; `runId` keeps requestIds fresh across runs and processes. */
export function requestMaker(name: ScenarioName, pools: LoadPools, runId: string): () => BenchRequest {
  switch (name) {
    case "handoverFirst": {
      const ids = [...pools.tenancyIds].sort(() => Math.random() - 0.5);
      let n = 0;
      return () => ({ method: "GET", path: `/handovers/tenancies/${encodeURIComponent(ids[n++ % ids.length]!)}` });
    }
    case "handover":
      return () => ({ method: "GET", path: `/handovers/tenancies/${encodeURIComponent(any(pools.tenancyIds))}` });
    case "handoverConditional": {
      const etags = pools.handoverEtags;
      if (!etags) throw new Error("handoverConditional needs the tenancies' ETags in the pools (bench/etags.ts)");
      const ids = Object.keys(etags);
      return () => {
        const id = any(ids);
        return {
          method: "GET",
          path: `/handovers/tenancies/${encodeURIComponent(id)}`,
          headers: { "if-none-match": etags[id]! },
        };
      };
    }
    case "agenda": {
      const today = Date.now() - (Date.now() % day);
      return () => {
        // A week starting anywhere in the seeded ±60 days.
        const from = today + (Math.floor(Math.random() * 114) - 60) * day;
        return {
          method: "GET",
          path: `/calendar/agenda?staffId=${encodeURIComponent(any(pools.staffIds))}&from=${ymd(from)}&to=${ymd(from + 7 * day)}`,
        };
      };
    }
    case "duplicateCheck":
      return () => ({
        method: "POST",
        path: "/contacts/duplicate-check",
        body: JSON.stringify(Math.random() < 0.5 ? { email: any(pools.emails) } : { mobile: any(pools.mobiles) }),
      });
    case "createCompany": {
      let n = 0;
      return () => {
        n += 1;
        return {
          method: "POST",
          path: "/companies",
          body: JSON.stringify({ requestId: `bench-${runId}-${n}`, name: `Bench Company ${runId} ${n}` }),
        };
      };
    }
  }
}
