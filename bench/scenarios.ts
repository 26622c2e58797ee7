/** The benchmark's scenarios: what each request is, drawn at random from the seeded workspace. */
import { londonMidnight } from "../src/core/dates.ts";
import { fullPages } from "./repairs_due.ts";
import type { LoadPools } from "./seed.ts";

/** A scenario's name. */
export type ScenarioName =
  | "handoverFirst"
  | "handover"
  | "handoverConditional"
  | "agendaFirst"
  | "agenda"
  | "agendaComputed"
  | "agendaUtc"
  | "duplicateCheck"
  | "repairsDue"
  | "createCompany"
  | "createRepair";

/** One scenario: its label in the table, its connections, and how to make a request. */
export interface Scenario {
  name: ScenarioName;
  label: string;
  connections: number;
  /** Sends this many requests, each one once, instead of running for a duration (no warm-up). */
  once?: (pools: LoadPools) => number;
  /** The pgbench baseline runs right before and right after this scenario. */
  baselineAround?: boolean;
  /** Its requests carry If-None-Match: the tenancies' ETags are collected before it runs (bench/etags.ts). */
  conditional?: boolean;
  /** The status every answer must have; any 2xx when unset. Another status counts as unexpected (a failure). */
  expectStatus?: number;
  /** Its requests are the due list's pages: they are walked through the service before it runs (repairs_due.ts). */
  repairsDuePages?: boolean;
}

/** The scenarios of issue 9, in the order they run. */
export const scenarios: readonly Scenario[] = [
  // Each tenancy's first read computes its row and stores it (sql/0008); the next scenario reads stored rows.
  {
    name: "handoverFirst",
    label: "GET /handovers/tenancies/{id}, first reads",
    connections: 64,
    once: (pools) => pools.tenancyIds.length,
  },
  { name: "handover", label: "GET /handovers/tenancies/{id}", connections: 64, baselineAround: true },
  // A poller re-reading unchanged rows: each request names the row's current ETag, so every answer is a 304.
  {
    name: "handoverConditional",
    label: "GET /handovers/tenancies/{id}, If-None-Match (304)",
    connections: 64,
    conditional: true,
    expectStatus: 304,
  },
  // Each member of staff's weeks in the seeded ±60 days, each page once: computed, its days stored (sql/0023).
  {
    name: "agendaFirst",
    label: "GET /calendar/agenda (a week, staff), first reads",
    connections: 64,
    once: (pools) => pools.staffIds.length * agendaWeeks,
  },
  // Any week starting on any day of those: served from the days the first reads stored.
  { name: "agenda", label: "GET /calendar/agenda (a week, staff)", connections: 64 },
  // The same pages from 00:00:00.001 with cancelled events listed too: a filter no stored day holds, so every page is
  // computed from the events (a window that is not whole days alone is cut from the stored days now).
  {
    name: "agendaComputed",
    label: "GET /calendar/agenda (a week, staff, includeCancelled), computed",
    connections: 64,
  },
  // Weeks given as UTC midnights (issue 36): not London's in summer, so those pages are cut from the stored days.
  { name: "agendaUtc", label: "GET /calendar/agenda (a week, staff, UTC midnights)", connections: 64 },
  { name: "duplicateCheck", label: "POST /contacts/duplicate-check", connections: 64 },
  // The repairs desk's "what is due": open clocks due within a week, earliest first; first pages and cursor pages.
  {
    name: "repairsDue",
    label: "GET /maintenance-pro/repairs?clock=open&dueBefore=(a week ahead)",
    connections: 64,
    expectStatus: 200,
    repairsDuePages: true,
  },
  { name: "createCompany", label: "POST /companies (fresh requestId)", connections: 32 },
  // After the due list: the repairs it creates (some emergencies, due within 24 h) would join that list.
  {
    name: "createRepair",
    label: "POST /maintenance-pro/repairs (half triaged at creation)",
    connections: 32,
    expectStatus: 201,
  },
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
/** The weeks the first agenda reads cover, from 60 days before today: the seeded ±60 days and a week after. */
const agendaWeeks = 18;
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
    case "agendaFirst": {
      const today = Date.now() - (Date.now() % day);
      const pages = pools.staffIds
        .flatMap((staff) => Array.from({ length: agendaWeeks }, (_, w) => [staff, today + (7 * w - 60) * day] as const))
        .sort(() => Math.random() - 0.5);
      let n = 0;
      return () => {
        const [staff, from] = pages[n++ % pages.length]!;
        return {
          method: "GET",
          path: `/calendar/agenda?staffId=${encodeURIComponent(staff)}&from=${ymd(from)}&to=${ymd(from + 7 * day)}`,
        };
      };
    }
    case "agenda":
    case "agendaComputed":
    case "agendaUtc": {
      const today = Date.now() - (Date.now() % day);
      return () => {
        // A week starting anywhere in the seeded ±60 days.
        const from = today + (Math.floor(Math.random() * 114) - 60) * day;
        const window =
          name === "agenda"
            ? `from=${ymd(from)}&to=${ymd(from + 7 * day)}`
            : name === "agendaUtc"
              ? `from=${ymd(from)}T00:00:00Z&to=${ymd(from + 7 * day)}T00:00:00Z`
              : `from=${new Date(londonMidnight(ymd(from)) + 1).toISOString()}&to=${ymd(from + 7 * day)}` +
                "&includeCancelled=true";
        return {
          method: "GET",
          path: `/calendar/agenda?staffId=${encodeURIComponent(any(pools.staffIds))}&${window}`,
        };
      };
    }
    case "duplicateCheck":
      return () => ({
        method: "POST",
        path: "/contacts/duplicate-check",
        body: JSON.stringify(Math.random() < 0.5 ? { email: any(pools.emails) } : { mobile: any(pools.mobiles) }),
      });
    case "repairsDue": {
      if (!pools.repairsDue)
        throw new Error("repairsDue needs the due list's pages in the pools (bench/repairs_due.ts)");
      const paths = fullPages(pools.repairsDue);
      // A fifth first pages (a desk opening its list), the rest any later full page through its cursor.
      return () => ({
        method: "GET",
        path:
          paths.length === 1 || Math.random() < 0.2
            ? paths[0]!
            : paths[1 + Math.floor(Math.random() * (paths.length - 1))]!,
      });
    }
    case "createRepair": {
      let n = 0;
      return () => {
        n += 1;
        const t = any(pools.repairTargets);
        const r = Math.random();
        // Half reported for triage later; the other half triaged at creation: significant, none or emergency.
        const triage =
          r < 0.5
            ? {}
            : r < 0.7
              ? { hazard: "significant", hhsrsHazard: "damp_and_mould_growth" }
              : r < 0.85
                ? { hazard: "none" }
                : { hazard: "emergency", hhsrsHazard: "electrical_hazards" };
        return {
          method: "POST",
          path: "/maintenance-pro/repairs",
          body: JSON.stringify({
            requestId: `bench-${runId}-${n}`,
            propertyId: t.propertyId,
            unitId: t.unitId,
            tenancyId: t.tenancyId,
            title: "Black mould spreading on the bedroom wall",
            description: "Reported by phone; the tenant will send photos.",
            location: "Bedroom 1",
            category: "damp_mould",
            reporter: { kind: "tenant", contactId: t.contactId },
            channel: "phone",
            ...triage,
          }),
        };
      };
    }
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
