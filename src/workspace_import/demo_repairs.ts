/**
 * The demo workspace's repairs: every status (and a legacy record), and under the social regime hazard clocks in
 * every state a repairs desk meets: a statutory emergency running, a damp and mould investigation breached, one due
 * this week, met, met late and ceased. Their instants are relative to the moment the demo is made, so the clocks are
 * in these states whenever it is made (and move on from there).
 */
import { hazardPolicyVersion } from "../maintenance_pro/schema.ts";
import type { RepairRecord } from "./repair_records.ts";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** The demo's repairs as of `now` (epoch milliseconds). */
export function demoRepairs(now: number): RepairRecord[] {
  /** The instant `ms` before now. */
  const ago = (ms: number) => new Date(now - ms).toISOString();
  /** The fields of a triage by Priya, `after` the repair's awareness. */
  const triage = (
    awareMsAgo: number,
    hazard: "none" | "significant" | "emergency",
    hhsrsHazard: RepairRecord["hhsrsHazard"],
    after = 30 * minute,
  ) => ({
    awareAt: ago(awareMsAgo),
    hazard,
    hhsrsHazard,
    regime: "social" as const,
    policyVersion: hazardPolicyVersion,
    triagedAt: ago(awareMsAgo - after),
    triagedByUserId: "usr-priya",
  });
  /** A milestone `msAgo` before now, recorded ten minutes after it by `by`. */
  const done = (
    kind: NonNullable<RepairRecord["milestones"]>[number]["kind"],
    msAgo: number,
    fields: { outcome?: "hazard_confirmed" | "no_hazard"; method?: "email" | "post"; note?: string } = {},
    by = "usr-priya",
  ) => ({ kind, at: ago(msAgo), recordedAt: ago(msAgo - 10 * minute), recordedByUserId: by, ...fields });

  return [
    {
      id: "rep-1031",
      reference: "R-1031",
      status: "completed",
      propertyId: "prop-ashby-court",
      unitId: "unit-ashby-1a",
      tenancyId: "ten-ashby-1a",
      title: "Cold tap dripping in the kitchen",
      location: "Kitchen",
      category: "leak",
      reporter: { kind: "staff", name: "Marcus Webb" },
      channel: "inspection",
      ...triage(200 * day, "none", null, day),
      milestones: [done("completed", 190 * day, { note: "Washer replaced." }, "usr-marcus")],
    },
    {
      id: "rep-1042",
      reference: "R-1042",
      status: "in_progress",
      propertyId: "prop-ashby-court",
      unitId: "unit-ashby-2b",
      tenancyId: "ten-ashby-2b",
      title: "Kitchen extractor fan not working",
      description: "Noted at the check-in; the tenant reports it has stopped altogether.",
      location: "Kitchen",
      category: "electrical",
      reporter: { kind: "tenant", contactId: "con-chloe-martin" },
      channel: "email",
      ...triage(30 * day, "none", null, 2 * hour),
      milestones: [
        done("investigated", 3 * day, { outcome: "no_hazard", note: "Fan motor seized; no damp or mould found." }),
      ],
    },
    {
      id: "rep-1043",
      reference: "R-1043",
      status: "completed",
      propertyId: "prop-ashby-court",
      unitId: "unit-ashby-2b",
      tenancyId: "ten-ashby-2b",
      title: "Bedroom window latch loose",
      location: "Bedroom",
      category: "security",
      reporter: { kind: "tenant", contactId: "con-chloe-martin" },
      channel: "portal",
      ...triage(40 * day, "none", null, day),
      milestones: [done("completed", 22 * day)],
    },
    {
      id: "rep-1051",
      reference: "R-1051",
      status: "reported",
      propertyId: "prop-ancoats-works",
      unitId: "unit-ancoats-3",
      tenancyId: "ten-ancoats-3",
      title: "Oven door glass cracked",
      description: "Found at the check-out.",
      location: "Kitchen",
      category: "other",
      reporter: { kind: "staff", name: "Owen Hughes" },
      channel: "inspection",
      awareAt: ago(12 * day),
    },
    {
      id: "rep-1052",
      reference: "R-1052",
      status: "completed",
      propertyId: "prop-ancoats-works",
      unitId: "unit-ancoats-3",
      tenancyId: "ten-ancoats-3",
      title: "Holes in the living room wall from shelving",
      location: "Living room",
      category: "structural",
      reporter: { kind: "staff", name: "Owen Hughes" },
      channel: "inspection",
      ...triage(12 * day, "none", null, day),
      milestones: [done("completed", 5 * day, { note: "Filled and painted." }, "usr-owen")],
    },
    {
      id: "rep-1060",
      reference: "R-1060",
      status: "cancelled",
      propertyId: "prop-ancoats-works",
      unitId: "unit-ancoats-5",
      tenancyId: "ten-ancoats-5",
      title: "Bathroom extractor noisy",
      location: "Bathroom",
      category: "electrical",
      reporter: { kind: "tenant", contactId: "con-sophie-chen" },
      channel: "sms",
      awareAt: ago(290 * day),
      cancelReason: "The noise stopped once the tenant cleaned the filter.",
      cancelledAt: ago(288 * day),
    },
    // A record from the agency's previous system: kept as it was, with no clocks.
    {
      id: "rep-1070",
      reference: "R-1070",
      status: "awaiting_contractor",
      propertyId: "prop-wellington-road",
      unitId: "unit-wellington",
    },
    // Emergency, investigated and made safe in time; the rewire under way.
    {
      id: "rep-1075",
      reference: "R-1075",
      status: "in_progress",
      propertyId: "prop-headingley-mews",
      unitId: "unit-headingley-4",
      title: "No power to the kitchen sockets; scorch marks on the consumer unit",
      location: "Hallway cupboard",
      category: "electrical",
      reporter: { kind: "contractor", contactId: "con-northern-spark" },
      channel: "phone",
      ...triage(47 * day, "emergency", "electrical_hazards", 15 * minute),
      milestones: [
        done("investigated", 47 * day - 3 * hour, { outcome: "hazard_confirmed" }, "usr-owen"),
        done("made_safe", 47 * day - 5 * hour, { note: "Circuit isolated." }, "usr-owen"),
        done("summary_sent", 46 * day, { method: "email" }),
        done("preventative_work_started", 14 * day, { note: "Rewire, stage 1." }),
      ],
    },
    // Damp and mould, every clock met.
    {
      id: "rep-1078",
      reference: "R-1078",
      status: "completed",
      propertyId: "prop-headingley-mews",
      unitId: "unit-headingley-4",
      tenancyId: "ten-headingley-4",
      title: "Mould around the bedroom window",
      location: "Bedroom",
      category: "damp_mould",
      reporter: { kind: "tenant", contactId: "con-ben-taylor" },
      channel: "phone",
      ...triage(40 * day, "significant", "damp_and_mould_growth"),
      milestones: [
        done("investigated", 38 * day, { outcome: "hazard_confirmed", note: "Condensation; no ventilation." }),
        done("summary_sent", 37 * day, { method: "email" }),
        done("safety_work_started", 36 * day, { note: "Mould wash; dehumidifier lent." }),
        done("preventative_work_started", 35 * day, { note: "Trickle vents and an extractor fitted." }),
        done("completed", 20 * day),
      ],
    },
    // Gas: made safe late (a breach that stays on the record); the preventative clock ceased with completion.
    {
      id: "rep-1080",
      reference: "R-1080",
      status: "completed",
      propertyId: "prop-ancoats-works",
      unitId: "unit-ancoats-3",
      tenancyId: "ten-ancoats-3",
      title: "Smell of gas at the hob",
      location: "Kitchen",
      category: "gas",
      reporter: { kind: "tenant", contactId: "con-liam-obrien" },
      channel: "phone",
      ...triage(40 * day, "emergency", "uncombusted_fuel_gas", 10 * minute),
      milestones: [
        done("investigated", 40 * day - 2 * hour, { outcome: "hazard_confirmed" }, "usr-owen"),
        done("made_safe", 40 * day - 30 * hour, { note: "Engineer capped the hob supply." }, "usr-owen"),
        done("summary_sent", 39 * day, { method: "email" }),
        done("completed", 37 * day, { note: "New hob fitted and tested." }),
      ],
    },
    // Damp and mould: investigated and made safe; the preventative work is due this week.
    {
      id: "rep-1085",
      reference: "R-1085",
      status: "in_progress",
      propertyId: "prop-ancoats-works",
      unitId: "unit-ancoats-5",
      tenancyId: "ten-ancoats-5",
      title: "Mould on the bedroom wall behind the bed",
      location: "Bedroom",
      category: "damp_mould",
      reporter: { kind: "tenant", contactId: "con-sophie-chen" },
      channel: "portal",
      ...triage(86 * day, "significant", "damp_and_mould_growth", 2 * hour),
      accessAttempts: [{ id: "acc-1085-1", at: ago(84 * day), outcome: "no_answer", recordedAt: ago(84 * day) }],
      milestones: [
        done("investigated", 80 * day, { outcome: "hazard_confirmed", note: "Cold bridging at the external wall." }),
        done("summary_sent", 80 * day - 4 * hour, { method: "post" }),
        done("safety_work_started", 78 * day, { note: "Mould treated; the bed moved off the wall." }),
      ],
    },
    // Damp and mould reported a month ago and still not investigated: the statutory clock is breached.
    {
      id: "rep-1088",
      reference: "R-1088",
      status: "triaged",
      propertyId: "prop-ashby-court",
      unitId: "unit-ashby-1a",
      tenancyId: "ten-ashby-1a",
      title: "Black mould spreading across the bathroom ceiling",
      location: "Bathroom",
      category: "damp_mould",
      reporter: { kind: "tenant", contactId: "con-aisha-khan" },
      channel: "phone",
      ...triage(30 * day, "significant", "damp_and_mould_growth", hour),
      accessAttempts: [
        { id: "acc-1088-1", at: ago(27 * day), outcome: "no_answer", recordedAt: ago(27 * day) },
        {
          id: "acc-1088-2",
          at: ago(22 * day),
          outcome: "rescheduled",
          note: "Tenant away; asked us to call back.",
          recordedAt: ago(22 * day),
        },
      ],
    },
    // A statutory emergency three hours old: both 24-hour clocks running.
    {
      id: "rep-1090",
      reference: "R-1090",
      status: "triaged",
      propertyId: "prop-wellington-road",
      unitId: "unit-wellington",
      tenancyId: "ten-wellington",
      title: "Carbon monoxide alarm sounding by the boiler",
      location: "Kitchen",
      category: "gas",
      reporter: { kind: "tenant", contactId: "con-george-hall" },
      channel: "phone",
      ...triage(3 * hour, "emergency", "carbon_monoxide_and_fuel_combustion_products", 10 * minute),
      triageNote: "Tenant told to turn the boiler off, open the windows and wait outside; Gas Safe engineer called.",
    },
  ];
}
