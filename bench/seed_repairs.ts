/// <reference types="temporal-spec/global" />
/**
 * The seed's repairs with hazard clocks (issue 31): `c.repairs` repairs reported over the last two years in realistic
 * states, inserted in bulk, with the columns the service computes stored as the service computes them.
 *
 * Each repair is drawn in TypeScript (deterministic per index): reported and, unless it is among the newest still
 * waiting, triaged with hazard none (55%), significant (35%) or emergency (10%); its milestones recorded on time (94%
 * each), late (5%) or never (1%: the clock stays breached, and open, for good), most repairs completed, 3% cancelled,
 * some access attempts. `open_due_at` and `open_due_last_at` come from the service's own functions (`repairClocks`,
 * `openDues`, `clockFacts`) over the working calendar the database holds, exactly as a write through the API stores
 * them; `verifyRepairs` checks a sample afterwards. The moments the clocks still owe (clock_moments.ts's
 * `owedMoments`, those later than now) are kept as the worker would have kept them, and the marks the insert's trigger
 * left are deleted: the seeded workspace starts with the hazard-clock worker caught up (the moments already past are
 * treated as sent long ago, without their events), so it does not spend the benchmark catching up on two years.
 */
import type { Db, Tx } from "../src/core/db.ts";
import { readWorkingCalendar } from "../src/maintenance_pro/bank_holidays.ts";
import { owedMoments } from "../src/maintenance_pro/clock_moments.ts";
import { openDues, repairClocks, type ClockContext } from "../src/maintenance_pro/clocks.ts";
import { repairRow, type RepairRow } from "../src/maintenance_pro/queries.ts";
import { clockFacts, inOrder } from "../src/maintenance_pro/repair_rules.ts";
import type { RepairAccessAttempt, RepairMilestone } from "../src/maintenance_pro/repair_schema.ts";
import { hazardPolicyVersion } from "../src/maintenance_pro/schema.ts";
import { pick, type SeedCounts } from "./seed.ts";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
/** How far back the seeded repairs were reported. */
const spanMs = 730 * day;

/** A uniform number in [0, 1) for repair `i` and stream `k`: deterministic, so a scale seeds the same repairs. */
const rnd = (i: number, k: number) => pick(i * 7919 + k * 104_729, 1_000_000_007) / 1_000_000_007;
/** One of `values` by cumulative weights (`weights` sum to 1). */
function weighted<T>(r: number, values: readonly T[], weights: readonly number[]): T {
  let sum = 0;
  for (let j = 0; j < values.length; j++) {
    sum += weights[j]!;
    if (r < sum) return values[j]!;
  }
  return values[values.length - 1]!;
}
const iso = (ms: number) => new Date(ms).toISOString();

const categories = [
  [
    "damp_mould",
    0.18,
    ["Black mould on the bedroom wall", "Damp patch spreading on the ceiling", "Mould around the windows"],
  ],
  [
    "leak",
    0.15,
    ["Water leaking through the kitchen ceiling", "Leak under the bathroom sink", "Roof leak in the loft"],
  ],
  ["heating_hot_water", 0.18, ["No heating or hot water", "Boiler keeps losing pressure", "Radiators cold upstairs"]],
  ["electrical", 0.1, ["Sockets sparking in the kitchen", "Lights trip the fuse box", "No power to the cooker"]],
  ["gas", 0.04, ["Smell of gas near the boiler", "Gas hob will not light"]],
  ["fire_safety", 0.03, ["Smoke alarm not working", "Fire door does not close"]],
  ["security", 0.06, ["Front door lock broken", "Window will not lock"]],
  ["structural", 0.04, ["Crack widening in the lounge wall", "Ceiling plaster falling"]],
  ["pests", 0.05, ["Mice in the kitchen", "Wasps nest by the back door"]],
  ["sanitation", 0.07, ["Toilet will not flush", "Blocked drain in the yard"]],
  ["other", 0.1, ["Garden fence blown down", "Extractor fan broken"]],
] as const;
const significantHazards = [
  ["damp_and_mould_growth", 0.55],
  ["excess_cold", 0.15],
  ["falls_on_stairs", 0.08],
  ["personal_hygiene_sanitation_and_drainage", 0.08],
  ["entry_by_intruders", 0.07],
  ["domestic_hygiene_pests_and_refuse", 0.07],
] as const;
const emergencyHazards = [
  ["fire", 0.2],
  ["electrical_hazards", 0.25],
  ["carbon_monoxide_and_fuel_combustion_products", 0.15],
  ["uncombusted_fuel_gas", 0.15],
  ["structural_collapse_and_falling_elements", 0.1],
  ["excess_cold", 0.12],
  ["crowding_and_space", 0.03],
] as const;
const locations = ["Kitchen", "Bathroom", "Bedroom 1", "Bedroom 2", "Living room", "Hallway", "Loft", "Garden"];
const channels = ["phone", "email", "portal", "sms", "api", "inspection", "other"] as const;
const channelWeights = [0.35, 0.2, 0.2, 0.08, 0.07, 0.07, 0.03];
const summaryMethods = ["email", "post", "hand", "left_at_home", "sms", "portal"] as const;
const accessOutcomes = ["granted", "refused", "no_answer", "rescheduled"] as const;

/** One repair's row as inserted (snake_case columns in the insert's order). */
interface SeedRepair {
  id: string;
  reference: string;
  status: string;
  propertyId: string;
  unitId: string;
  tenancyId: string | null;
  title: string;
  description: string | null;
  location: string | null;
  category: string;
  reporterKind: string;
  reporterContactId: string | null;
  reporterName: string | null;
  channel: string;
  awareAt: string;
  hazard: string | null;
  hhsrsHazard: string | null;
  regime: string | null;
  policyVersion: string | null;
  triagedAt: string | null;
  triagedByUserId: string | null;
  triageNote: string | null;
  milestones: RepairMilestone[];
  accessAttempts: RepairAccessAttempt[];
  cancelReason: string | null;
  cancelledAt: string | null;
  revision: number;
  createdAt: string;
  updatedAt: string;
  openDueAt: string | null;
  openDueLastAt: string | null;
}

/** When a milestone comes after its anchor: on time, late, or never (null), as drawn by `r`. */
function timing(r: number, r2: number, onTime: [number, number], late: [number, number]): number | null {
  if (r < 0.94) return onTime[0] + r2 * (onTime[1] - onTime[0]);
  if (r < 0.99) return late[0] + r2 * (late[1] - late[0]);
  return null;
}

/** Repair `i` of `count` (1: the newest), drawn as of `nowMs`; its stored dues are filled in by the caller. */
function drawRepair(
  i: number,
  count: number,
  nowMs: number,
  c: SeedCounts,
): Omit<SeedRepair, "openDueAt" | "openDueLastAt"> {
  const ageMs = Math.floor((spanMs * (i - 1 + rnd(i, 0))) / count);
  const createdMs = nowMs - ageMs - 1000;
  const awareMs = createdMs - (rnd(i, 1) < 0.2 ? rnd(i, 2) * 2 * day : rnd(i, 2) * 30 * minute);
  const unit = 1 + pick(i * 3 + 1, c.tenancies);
  const withTenancy = rnd(i, 3) < 0.85;
  const [category, , titles] = weighted(
    rnd(i, 4),
    categories,
    categories.map((x) => x[1]),
  );
  const staff = (k: number) => `staff-${1 + pick(i * 13 + k, c.staff)}`;
  const reporterKind = withTenancy
    ? weighted(rnd(i, 5), ["tenant", "staff", "landlord", "contractor", "other"], [0.7, 0.12, 0.06, 0.05, 0.07])
    : weighted(rnd(i, 5), ["staff", "landlord", "contractor", "other"], [0.5, 0.2, 0.15, 0.15]);
  const cap = (ms: number) => Math.min(ms, nowMs - 1000);

  // Triage: the newest reports partly still waiting; a few older ones never triaged (a backlog).
  const waiting = (ageMs < 2 * day && rnd(i, 6) < 0.35) || rnd(i, 6) < 0.003;
  const atCreation = rnd(i, 7) < 0.3;
  const triagedMs = waiting ? null : atCreation ? createdMs : cap(createdMs + rnd(i, 8) * 4 * hour);
  const hazard = waiting ? null : weighted(rnd(i, 9), ["none", "significant", "emergency"] as const, [0.55, 0.35, 0.1]);
  const hhsrsHazard =
    hazard === "significant"
      ? weighted(
          rnd(i, 10),
          significantHazards.map((x) => x[0]),
          significantHazards.map((x) => x[1]),
        )
      : hazard === "emergency"
        ? weighted(
            rnd(i, 10),
            emergencyHazards.map((x) => x[0]),
            emergencyHazards.map((x) => x[1]),
          )
        : null;

  // Milestones, as planned from awareness; those not yet past are not recorded.
  const planned: { kind: RepairMilestone["kind"]; at: number; outcome?: string; method?: string }[] = [];
  if (hazard === "significant" || hazard === "emergency") {
    const emergency = hazard === "emergency";
    const inv = timing(
      rnd(i, 11),
      rnd(i, 12),
      emergency ? [1 * hour, 20 * hour] : [1 * day, 12 * day],
      emergency ? [25 * hour, 72 * hour] : [16 * day, 40 * day],
    );
    if (emergency) {
      if (rnd(i, 13) < 0.05) planned.push({ kind: "decanted", at: awareMs + (3 + rnd(i, 14) * 17) * hour });
      else {
        const safe = timing(rnd(i, 15), rnd(i, 16), [2 * hour, 23 * hour], [26 * hour, 80 * hour]);
        if (safe !== null) planned.push({ kind: "made_safe", at: awareMs + safe });
      }
    }
    if (inv !== null) {
      const invMs = awareMs + inv;
      const confirmed = rnd(i, 17) < 0.7;
      planned.push({ kind: "investigated", at: invMs, outcome: confirmed ? "hazard_confirmed" : "no_hazard" });
      const summary = timing(rnd(i, 18), rnd(i, 19), [2 * hour, 2 * day], [5 * day, 12 * day]);
      if (summary !== null)
        planned.push({
          kind: "summary_sent",
          at: invMs + summary,
          method: summaryMethods[pick(i * 5 + 2, summaryMethods.length)]!,
        });
      if (confirmed && !emergency) {
        const safety = timing(rnd(i, 20), rnd(i, 21), [1 * day, 6 * day], [9 * day, 20 * day]);
        if (safety !== null) planned.push({ kind: "safety_work_started", at: invMs + safety });
      }
      if (confirmed) {
        const prevent = timing(rnd(i, 22), rnd(i, 23), [10 * day, 80 * day], [86 * day, 120 * day]);
        if (prevent !== null) planned.push({ kind: "preventative_work_started", at: invMs + prevent });
      }
    }
  }
  if (hazard !== null && rnd(i, 24) < 0.97) {
    const last = Math.max(awareMs + day, ...planned.map((m) => m.at));
    planned.push({ kind: "completed", at: last + (1 + rnd(i, 25) * 19) * day });
  }
  // 3% cancelled (a completed repair cannot be): what was planned after the cancel never happens.
  let cancelledMs = rnd(i, 26) < 0.03 ? createdMs + (1 + rnd(i, 27) * 239) * hour : null;
  if (cancelledMs !== null && cancelledMs > nowMs - minute) cancelledMs = null;
  const completedPlan = planned.find((m) => m.kind === "completed");
  if (cancelledMs !== null && completedPlan && completedPlan.at <= cancelledMs && completedPlan.at <= nowMs - minute)
    cancelledMs = null;
  const until = cancelledMs ?? nowMs - minute;
  const milestones: RepairMilestone[] = [];
  for (const [k, m] of planned.entries()) {
    if (m.at > until) continue;
    const recordedMs = Math.min(Math.max(m.at, triagedMs ?? m.at) + rnd(i, 30 + k) * 6 * hour, until);
    milestones.push({
      kind: m.kind,
      at: iso(m.at),
      outcome: (m.outcome ?? null) as RepairMilestone["outcome"],
      method: (m.method ?? null) as RepairMilestone["method"],
      note: rnd(i, 40 + k) < 0.2 ? "Recorded from the contractor's report" : null,
      recordedAt: iso(recordedMs),
      recordedByUserId: staff(k),
    });
  }
  const completedMs = milestones.find((m) => m.kind === "completed");
  // Access attempts: evidence kept on some repairs, while they were open.
  const accessAttempts: RepairAccessAttempt[] = [];
  if (rnd(i, 50) < 0.15) {
    const openUntil = Math.min(completedMs ? Date.parse(completedMs.recordedAt) : until, until);
    const attempts = 1 + pick(i * 7 + 3, 3);
    for (let k = 0; k < attempts; k++) {
      const at = awareMs + rnd(i, 51 + k) * Math.min(openUntil - awareMs, 20 * day);
      const recorded = Math.min(at + rnd(i, 55 + k) * hour, openUntil);
      if (recorded < at) continue;
      accessAttempts.push({
        id: `acc-${i}-${k}`,
        at: iso(at),
        outcome: accessOutcomes[pick(i * 11 + k, accessOutcomes.length)]!,
        note: k === 0 ? "Called ahead, no answer at the door" : null,
        recordedAt: iso(recorded),
      });
    }
  }
  const writes = [
    createdMs,
    triagedMs ?? createdMs,
    ...milestones.map((m) => Date.parse(m.recordedAt)),
    ...accessAttempts.map((a) => Date.parse(a.recordedAt)),
    cancelledMs ?? createdMs,
  ];
  const status =
    cancelledMs !== null
      ? "cancelled"
      : completedMs
        ? "completed"
        : milestones.length
          ? "in_progress"
          : hazard !== null
            ? "triaged"
            : "reported";
  const triaged = triagedMs !== null;
  return {
    id: `rpr-${i}`,
    reference: `R-${count - i + 1}`,
    status,
    propertyId: `prop-${Math.floor((unit - 1) / 20) + 1}`,
    unitId: `unit-${unit}`,
    tenancyId: withTenancy ? `ten-${unit}` : null,
    title: titles[pick(i * 17 + 5, titles.length)]!,
    description: rnd(i, 60) < 0.7 ? "Reported by the household; photos sent by email." : null,
    location: rnd(i, 61) < 0.8 ? locations[pick(i * 19 + 1, locations.length)]! : null,
    category,
    reporterKind,
    reporterContactId: reporterKind === "tenant" ? `con-${2 * unit - 1}` : null,
    reporterName:
      reporterKind === "tenant" ? null : reporterKind === "other" ? "A neighbour" : `Reported by ${reporterKind}`,
    channel: weighted(rnd(i, 62), channels, channelWeights),
    awareAt: iso(awareMs),
    hazard,
    hhsrsHazard,
    regime: triaged ? "private" : null,
    policyVersion: triaged ? hazardPolicyVersion : null,
    triagedAt: triagedMs === null ? null : iso(triagedMs),
    triagedByUserId: triaged ? staff(9) : null,
    triageNote: triaged && rnd(i, 63) < 0.4 ? "Triaged from the tenant's photos" : null,
    milestones: inOrder(milestones),
    accessAttempts: inOrder(accessAttempts),
    cancelReason: cancelledMs === null ? null : "Duplicate of another report",
    cancelledAt: cancelledMs === null ? null : iso(cancelledMs),
    revision:
      1 + (triaged && !atCreation ? 1 : 0) + milestones.length + accessAttempts.length + (cancelledMs === null ? 0 : 1),
    createdAt: iso(createdMs),
    updatedAt: iso(Math.max(...writes)),
  };
}

/** A repair's row as the clock rules read it (clockFacts). */
const asRow = (r: Omit<SeedRepair, "openDueAt" | "openDueLastAt">) => r as unknown as RepairRow;

/** How the seeded repairs came out: by status, with an open clock, and with a breach that stays open. */
export interface RepairSeedSummary {
  repairs: number;
  byStatus: Record<string, number>;
  withOpenClock: number;
  openBreached: number;
  momentsOwed: number;
}

/**
 * Seeds `c.repairs` repairs into the workspace in the caller's transaction (after the tenancies, units, contacts and
 * staff they name), their stored dues and owed moments computed by the service's functions.
 */
export async function seedRepairs(tx: Tx, ws: string, c: SeedCounts): Promise<RepairSeedSummary> {
  const now = Temporal.Now.instant();
  const nowMs = now.epochMilliseconds;
  const context: ClockContext = { calendar: await readWorkingCalendar(tx), prsInForceFrom: null, now };
  const summary: RepairSeedSummary = {
    repairs: c.repairs,
    byStatus: {},
    withOpenClock: 0,
    openBreached: 0,
    momentsOwed: 0,
  };
  const moments: { repairId: string; clockKind: string; moment: string; at: string }[] = [];
  const batch = 10_000;
  for (let start = 1; start <= c.repairs; start += batch) {
    const rows: SeedRepair[] = [];
    for (let i = start; i < start + batch && i <= c.repairs; i++) {
      const drawn = drawRepair(i, c.repairs, nowMs, c);
      const facts = clockFacts(asRow(drawn));
      const clocks = repairClocks(facts, context);
      const dues = openDues(clocks);
      rows.push({ ...drawn, openDueAt: dues.first, openDueLastAt: dues.last });
      summary.byStatus[drawn.status] = (summary.byStatus[drawn.status] ?? 0) + 1;
      if (dues.first !== null) summary.withOpenClock += 1;
      if (clocks.some((k) => k.status === "breached")) summary.openBreached += 1;
      for (const m of owedMoments(facts, clocks))
        if (Date.parse(m.at) > nowMs)
          moments.push({ repairId: drawn.id, clockKind: m.clockKind, moment: m.moment, at: m.at });
    }
    const col = <K extends keyof SeedRepair>(k: K) => rows.map((r) => r[k] ?? null) as (string | null)[];
    const json = (k: "milestones" | "accessAttempts") => rows.map((r) => JSON.stringify(r[k]));
    await tx`
      insert into repairs (workspace_id, id, reference, status, property_id, unit_id, tenancy_id, title, description, location,
                           category, reporter_kind, reporter_contact_id, reporter_name, channel, aware_at, hazard, hhsrs_hazard,
                           regime, policy_version, triaged_at, triaged_by_user_id, triage_note, milestones, access_attempts,
                           cancel_reason, cancelled_at, revision, created_at, updated_at, open_due_at, open_due_last_at)
      select ${ws}, id, reference, status, property_id, unit_id, tenancy_id, title, description, location, category,
             reporter_kind, reporter_contact_id, reporter_name, channel, aware_at::timestamptz, hazard, hhsrs_hazard, regime,
             policy_version, triaged_at::timestamptz, triaged_by_user_id, triage_note, milestones::jsonb, access_attempts::jsonb,
             cancel_reason, cancelled_at::timestamptz, revision::int, created_at::timestamptz, updated_at::timestamptz,
             open_due_at::timestamptz, open_due_last_at::timestamptz
      from unnest(${col("id")}::text[], ${col("reference")}::text[], ${col("status")}::text[], ${col("propertyId")}::text[],
                  ${col("unitId")}::text[], ${col("tenancyId")}::text[], ${col("title")}::text[], ${col("description")}::text[],
                  ${col("location")}::text[], ${col("category")}::text[], ${col("reporterKind")}::text[],
                  ${col("reporterContactId")}::text[], ${col("reporterName")}::text[], ${col("channel")}::text[],
                  ${col("awareAt")}::text[], ${col("hazard")}::text[], ${col("hhsrsHazard")}::text[], ${col("regime")}::text[],
                  ${col("policyVersion")}::text[], ${col("triagedAt")}::text[], ${col("triagedByUserId")}::text[],
                  ${col("triageNote")}::text[], ${json("milestones")}::text[], ${json("accessAttempts")}::text[],
                  ${col("cancelReason")}::text[], ${col("cancelledAt")}::text[], ${rows.map((r) => String(r.revision))}::text[],
                  ${col("createdAt")}::text[], ${col("updatedAt")}::text[], ${col("openDueAt")}::text[],
                  ${col("openDueLastAt")}::text[])
        as x(id, reference, status, property_id, unit_id, tenancy_id, title, description, location, category, reporter_kind,
             reporter_contact_id, reporter_name, channel, aware_at, hazard, hhsrs_hazard, regime, policy_version, triaged_at,
             triaged_by_user_id, triage_note, milestones, access_attempts, cancel_reason, cancelled_at, revision, created_at,
             updated_at, open_due_at, open_due_last_at)`;
  }
  for (let start = 0; start < moments.length; start += 20_000) {
    const part = moments.slice(start, start + 20_000);
    await tx`
      insert into hazard_clock_moments (workspace_id, repair_id, clock_kind, moment, at)
      select ${ws}, repair_id, clock_kind, moment, at::timestamptz
      from unnest(${part.map((m) => m.repairId)}::text[], ${part.map((m) => m.clockKind)}::text[],
                  ${part.map((m) => m.moment)}::text[], ${part.map((m) => m.at)}::text[]) as x(repair_id, clock_kind, moment, at)`;
  }
  summary.momentsOwed = moments.length;
  // The insert's trigger marked every triaged repair for the worker (sql/0029); their moments are kept above.
  await tx`delete from hazard_clock_changes where workspace_id = ${ws}`;
  return summary;
}

/**
 * Checks a sample of the seeded repairs as the service reads them back: their stored dues equal what the service's
 * clock rules give for the row as read (the seed's own arithmetic, the SQL round trip and the calendar agree).
 */
export async function verifyRepairs(db: Db, workspaceId: string): Promise<void> {
  const context: ClockContext = {
    calendar: await readWorkingCalendar(db),
    prsInForceFrom: null,
    now: Temporal.Now.instant(),
  };
  const sample = await db<{ id: string; openDueAt: string | null; openDueLastAt: string | null }[]>`
    select id, iso(open_due_at) as open_due_at, iso(open_due_last_at) as open_due_last_at from repairs
    where workspace_id = ${workspaceId} and id like 'rpr-%' and (abs(hashtext(id)) % 97 = 0 or open_due_at is not null)
    order by abs(hashtext(id)) limit 400`;
  for (const stored of sample) {
    const row = await repairRow(db, workspaceId, stored.id);
    const dues = openDues(repairClocks(clockFacts(row!), context));
    if (dues.first !== stored.openDueAt || dues.last !== stored.openDueLastAt) {
      throw new Error(
        `seed: repair ${stored.id} stores dues ${stored.openDueAt} / ${stored.openDueLastAt}, the clock rules give ` +
          `${dues.first} / ${dues.last}`,
      );
    }
  }
}
