/** The demo workspace's document: a small UK letting agency, with every date relative to today in Europe/London. */
import type { WorkspaceDoc } from "./schema.ts";

/** Minutes Europe/London is ahead of UTC at an instant. */
function londonOffsetMinutes(ms: number): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/London", hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return (Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute")) - ms) / 60000;
}

/** Today's date in Europe/London, YYYY-MM-DD. */
export function londonToday(now = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/London" }).format(now);
}

/** Builds the demo document for a given London date. Ids are fixed; dates move with `today`. */
export function demoDocument(today = londonToday()): WorkspaceDoc {
  const base = Date.parse(`${today}T00:00:00Z`);
  /** The date `n` days from today. */
  const day = (n: number) => new Date(base + n * 86_400_000).toISOString().slice(0, 10);
  /** The instant of London wall-clock `time` on the day `n` days from today. */
  const at = (n: number, time: string) => {
    const [hh, mm] = time.split(":").map(Number) as [number, number];
    const wall = base + n * 86_400_000 + (hh * 60 + mm) * 60_000;
    return new Date(wall - londonOffsetMinutes(wall) * 60_000).toISOString();
  };
  const vat = (net: number) => Math.round(net * 0.2);
  const line = (id: string, kind: string, description: string, netMinor: number) => ({ id, kind, description, netMinor, vatMinor: vat(netMinor) });
  const gross = (net: number) => net + vat(net);

  return {
    users: [
      { id: "usr-hannah", name: "Hannah Price", email: "hannah.price@harbour-lettings.example", role: "owner" },
      { id: "usr-marcus", name: "Marcus Webb", email: "marcus.webb@harbour-lettings.example", role: "admin" },
      { id: "usr-priya", name: "Priya Shah", email: "priya.shah@harbour-lettings.example", role: "staff" },
      { id: "usr-owen", name: "Owen Hughes", email: "owen.hughes@harbour-lettings.example", role: "staff" },
    ],
    entitlements: ["maintenance-pro", "telephony"],
    hazardSettings: { regime: "private" },

    contacts: [
      { id: "con-margaret-ellis", kind: "person", name: "Margaret Ellis", email: "margaret.ellis@example.com", mobile: "07700 900101", addressLine1: "4 Royal York Crescent", addressTown: "Bristol", addressPostcode: "BS8 4JZ", roles: ["landlord"] },
      { id: "con-rajesh-patel", kind: "person", name: "Rajesh Patel", mobile: "07700 900102", addressLine1: "17 Shire Oak Road", addressTown: "Leeds", addressPostcode: "LS6 2DD", roles: ["landlord"], notes: "Prefers phone calls; no email address on file." },
      { id: "con-northgate", kind: "company", name: "Northgate Residential Ltd", email: "lettings@northgate-residential.example", addressLine1: "Unit 3, Jutland Street", addressTown: "Manchester", addressPostcode: "M1 2BE", roles: ["landlord"], registrationNumber: "09876543", registrationJurisdiction: "England and Wales", website: "https://northgate-residential.example" },
      { id: "con-david-okafor", kind: "person", name: "David Okafor", email: "d.okafor@example.net", mobile: "+44 7700 900104", addressLine1: "52 Ashley Road", addressTown: "Bristol", addressPostcode: "BS6 5NR", roles: ["landlord"] },
      { id: "con-susan-clarke", kind: "person", name: "Susan Clarke", mobile: "07700900105", addressLine1: "2 Stainbeck Lane", addressTown: "Leeds", addressPostcode: "LS7 3QY", roles: ["landlord"] },

      { id: "con-chloe-martin", kind: "person", name: "Chloe Martin", email: "chloe.martin@example.com", mobile: "07700 900201", roles: ["tenant"] },
      { id: "con-james-martin", kind: "person", name: "James Martin", email: "james.martin@example.com", mobile: "07700 900202", roles: ["tenant"] },
      { id: "con-peter-martin", kind: "person", name: "Peter Martin", email: "peter.martin@example.org", addressLine1: "9 Church Lane", addressTown: "Taunton", addressPostcode: "TA1 1AA", roles: ["guarantor"] },
      { id: "con-aisha-khan", kind: "person", name: "Aisha Khan", email: "aisha.khan@example.com", mobile: "07700 900203", roles: ["tenant"] },
      { id: "con-ben-taylor", kind: "person", name: "Ben Taylor", email: "ben.taylor@example.com", mobile: "07700 900204", roles: ["tenant"] },
      { id: "con-ella-wright", kind: "person", name: "Ella Wright", email: "ella.wright@example.com", mobile: "07700 900205", roles: ["tenant"] },
      { id: "con-harry-lewis", kind: "person", name: "Harry Lewis", email: "harry.lewis@example.com", mobile: "07700 900206", roles: ["tenant"] },
      { id: "con-liam-obrien", kind: "person", name: "Liam O'Brien", email: "liam.obrien@example.com", mobile: "07700 900207", roles: ["tenant"] },
      { id: "con-sophie-chen", kind: "person", name: "Sophie Chen", email: "sophie.chen@example.com", mobile: "07700 900208", roles: ["tenant"] },
      { id: "con-tom-reid", kind: "person", name: "Tom Reid", email: "tom.reid@example.com", roles: ["tenant"] },
      { id: "con-george-hall", kind: "person", name: "George Hall", email: "george.hall@example.com", mobile: "07700 900210", roles: ["tenant"] },
      { id: "con-freya-jones", kind: "person", name: "Freya Jones", email: "freya.jones@example.com", mobile: "07700 900211", roles: ["tenant"], archivedAt: at(-50, "09:00") },
      { id: "con-noah-williams", kind: "person", name: "Noah Williams", email: "noah.williams@example.com", mobile: "07700 900212", roles: ["other"], notes: "Applicant: viewing flats in Bristol." },

      { id: "con-avon-plumbing", kind: "company", name: "Avon Valley Plumbing & Heating Ltd", email: "jobs@avonvalleyplumbing.example", mobile: "07700 900301", addressLine1: "Unit 12, Albert Road Trading Estate", addressTown: "Bristol", addressPostcode: "BS2 0XA", roles: ["contractor"], registrationNumber: "8123456", registrationJurisdiction: "England and Wales", notes: "Gas Safe registered." },
      { id: "con-northern-spark", kind: "company", name: "Northern Spark Electrical Ltd", email: "office@northernspark.example", addressLine1: "44 Kirkstall Road", addressTown: "Leeds", addressPostcode: "LS4 2AA", roles: ["contractor"], registrationNumber: "07654321", registrationJurisdiction: "England and Wales", website: "https://northernspark.example" },
      { id: "con-pennine-locks", kind: "company", name: "Pennine Locksmiths", email: "help@penninelocks.example", mobile: "07700 900303", addressTown: "Manchester", addressPostcode: "M4 1HN", roles: ["contractor"] },
      { id: "con-cleanright", kind: "company", name: "CleanRight Services Ltd", email: "accounts@cleanright.example", addressTown: "Bristol", addressPostcode: "BS1 6QF", roles: ["supplier", "contractor"], registrationNumber: "11223344" },
      { id: "con-gary-hughes", kind: "person", name: "Gary Hughes", email: "gary@avonvalleyplumbing.example", mobile: "07700 900311", roles: ["contractor"] },
      { id: "con-nadia-ali", kind: "person", name: "Nadia Ali", email: "nadia.ali@northernspark.example", roles: ["contractor"] },
    ],
    companyPeople: [
      { companyId: "con-avon-plumbing", contactId: "con-gary-hughes", role: "Director" },
      { companyId: "con-northern-spark", contactId: "con-nadia-ali", role: "Accounts" },
    ],

    properties: [
      { id: "prop-ashby-court", label: "Ashby Court", addressLine1: "12 Coronation Road", addressTown: "Bristol", addressPostcode: "BS3 1AS", landlordContactIds: ["con-margaret-ellis"], facts: { fireAlarm: "yes", emergencyLighting: "yes", communalWater: "no" } },
      { id: "prop-headingley-mews", label: "Headingley Mews", addressLine1: "41 Cardigan Road", addressTown: "Leeds", addressPostcode: "LS6 3BE", landlordContactIds: ["con-rajesh-patel"], facts: { builtBefore2000: "yes" } },
      { id: "prop-ancoats-works", label: "Ancoats Works", addressLine1: "7 Blossom Street", addressTown: "Manchester", addressPostcode: "M4 6AJ", landlordContactIds: ["con-northgate"], facts: { storeyOver11m: "yes", builtBefore2000: "no" } },
      { id: "prop-wellington-road", label: "23 Wellington Road", addressLine1: "23 Wellington Road", addressTown: "Bristol", addressPostcode: "BS2 9DA", landlordContactIds: ["con-david-okafor", "con-margaret-ellis"] },
      { id: "prop-harrogate-road", label: "8 Harrogate Road", addressLine1: "8 Harrogate Road", addressTown: "Leeds", addressPostcode: "LS7 3NB", landlordContactIds: ["con-susan-clarke"] },
    ],
    blocks: [
      {
        id: "blk-ashby-a", propertyId: "prop-ashby-court", label: "Block A (flats 1–6)", facts: { storeyOver11m: "no", builtBefore2000: "yes" },
        updatedAt: at(-40, "11:15"), updatedByUserId: "usr-priya",
        history: [
          { id: "bfh-ashby-a-1", kind: "fact_changed", detail: "builtBefore2000 set to yes (deeds checked: built 1968).", actorUserId: "usr-priya", createdAt: at(-120, "10:00") },
          { id: "bfh-ashby-a-2", kind: "fact_changed", detail: "storeyOver11m set to no (top floor measured at 9.4 m).", actorUserId: "usr-priya", createdAt: at(-40, "11:15") },
        ],
      },
      {
        id: "blk-ashby-b", propertyId: "prop-ashby-court", label: "Block B (flats 7–12)", facts: { emergencyLighting: "no" },
        updatedAt: at(-15, "14:30"), updatedByUserId: "usr-marcus",
        history: [{ id: "bfh-ashby-b-1", kind: "fact_changed", detail: "emergencyLighting set to no: stairwell units failed their annual test.", actorUserId: "usr-marcus", createdAt: at(-15, "14:30") }],
      },
      { id: "blk-headingley", propertyId: "prop-headingley-mews", label: "Headingley Mews", facts: { fireAlarm: "unknown" } },
      {
        id: "blk-ancoats", propertyId: "prop-ancoats-works", label: "Ancoats Works (main block)",
        facts: { storeyOver11m: "yes", fireAlarm: "yes", emergencyLighting: "yes", communalWater: "yes" },
        updatedAt: at(-8, "09:45"), updatedByUserId: "usr-hannah",
        history: [
          { id: "bfh-ancoats-1", kind: "fact_changed", detail: "storeyOver11m set to yes (seven storeys).", actorUserId: "usr-hannah", createdAt: at(-200, "16:20") },
          { id: "bfh-ancoats-2", kind: "fact_changed", detail: "communalWater set to yes: shared cold water tank on the roof.", actorUserId: "usr-owen", createdAt: at(-60, "12:00") },
          { id: "bfh-ancoats-3", kind: "fact_changed", detail: "emergencyLighting set to yes after the new system was commissioned.", actorUserId: "usr-hannah", createdAt: at(-8, "09:45") },
        ],
      },
    ],
    units: [
      { id: "unit-ashby-1a", propertyId: "prop-ashby-court", blockId: "blk-ashby-a", label: "Flat 1A", meters: ["electricity", "gas", "water"] },
      { id: "unit-ashby-2b", propertyId: "prop-ashby-court", blockId: "blk-ashby-a", label: "Flat 2B", meters: ["electricity", "gas", "water"] },
      { id: "unit-ashby-7", propertyId: "prop-ashby-court", blockId: "blk-ashby-b", label: "Flat 7", meters: ["electricity", "water"] },
      { id: "unit-headingley-2", propertyId: "prop-headingley-mews", blockId: "blk-headingley", label: "Flat 2", meters: ["electricity", "gas"] },
      { id: "unit-headingley-4", propertyId: "prop-headingley-mews", blockId: "blk-headingley", label: "Flat 4", meters: ["electricity", "gas"] },
      { id: "unit-ancoats-3", propertyId: "prop-ancoats-works", blockId: "blk-ancoats", label: "Apartment 3", meters: ["electricity", "water"] },
      { id: "unit-ancoats-5", propertyId: "prop-ancoats-works", blockId: "blk-ancoats", label: "Apartment 5", meters: ["electricity", "water"] },
      { id: "unit-wellington", propertyId: "prop-wellington-road", label: "Whole house", meters: ["electricity", "gas", "water"] },
      { id: "unit-harrogate", propertyId: "prop-harrogate-road", label: "Whole house", meters: ["electricity", "gas", "water"] },
    ],

    tenancies: [
      { id: "ten-ashby-1a", unitId: "unit-ashby-1a", status: "active", startsOn: day(-200), endsOn: day(165), occupants: [{ contactId: "con-aisha-khan", role: "tenant", isLead: true }] },
      {
        id: "ten-ashby-2b", unitId: "unit-ashby-2b", status: "notice_given", startsOn: day(-340), endsOn: day(12), noticeGivenOn: day(-18),
        occupants: [
          { contactId: "con-chloe-martin", role: "tenant", isLead: true },
          { contactId: "con-james-martin", role: "tenant", isLead: false },
          { contactId: "con-peter-martin", role: "guarantor", isLead: false },
        ],
      },
      { id: "ten-headingley-2-prev", unitId: "unit-headingley-2", status: "notice_given", startsOn: day(-365), endsOn: day(3), noticeGivenOn: day(-60), occupants: [{ contactId: "con-harry-lewis", role: "tenant", isLead: true }] },
      { id: "ten-headingley-2", unitId: "unit-headingley-2", status: "active", startsOn: day(6), endsOn: day(371), occupants: [{ contactId: "con-ella-wright", role: "tenant", isLead: true }] },
      { id: "ten-headingley-4", unitId: "unit-headingley-4", status: "active", startsOn: day(-45), endsOn: day(320), occupants: [{ contactId: "con-ben-taylor", role: "tenant", isLead: true }] },
      { id: "ten-ancoats-3", unitId: "unit-ancoats-3", status: "ended", startsOn: day(-400), endsOn: day(-12), noticeGivenOn: day(-70), occupants: [{ contactId: "con-liam-obrien", role: "tenant", isLead: true }] },
      {
        id: "ten-ancoats-5", unitId: "unit-ancoats-5", status: "notice_given", startsOn: day(-300), endsOn: day(25), noticeGivenOn: day(-5),
        occupants: [
          { contactId: "con-sophie-chen", role: "tenant", isLead: true },
          { contactId: "con-tom-reid", role: "tenant", isLead: false },
        ],
      },
      { id: "ten-wellington", unitId: "unit-wellington", status: "notice_given", startsOn: day(-700), endsOn: day(28), noticeGivenOn: day(-2), occupants: [{ contactId: "con-george-hall", role: "tenant", isLead: true }] },
      { id: "ten-harrogate", unitId: "unit-harrogate", status: "ended", startsOn: day(-800), endsOn: day(-60), noticeGivenOn: day(-120), occupants: [{ contactId: "con-freya-jones", role: "tenant", isLead: true }] },
    ],
    handovers: [
      { id: "ho-ashby-1a-in", tenancyId: "ten-ashby-1a", direction: "move_in", status: "completed", dueOn: day(-200), completedAt: at(-200, "15:10"), meterReadings: [{ meter: "electricity", reading: "18342", readOn: day(-200) }, { meter: "gas", reading: "04127.6", readOn: day(-200) }, { meter: "water", reading: "00311", readOn: day(-200) }] },
      { id: "ho-ashby-2b-in", tenancyId: "ten-ashby-2b", direction: "move_in", status: "open", dueOn: day(-340), meterReadings: [{ meter: "electricity", reading: "22019", readOn: day(-340) }] },
      { id: "ho-ashby-2b-out", tenancyId: "ten-ashby-2b", direction: "move_out", status: "open", dueOn: day(12) },
      { id: "ho-headingley-2-prev-in", tenancyId: "ten-headingley-2-prev", direction: "move_in", status: "completed", dueOn: day(-365), completedAt: at(-365, "12:30"), meterReadings: [{ meter: "electricity", reading: "30511", readOn: day(-365) }, { meter: "gas", reading: "11876.2", readOn: day(-365) }] },
      { id: "ho-headingley-2-prev-out", tenancyId: "ten-headingley-2-prev", direction: "move_out", status: "open", dueOn: day(3), forwardingAddress: "c/o 14 Otley Road, Leeds LS6 2AL", noticeEvidenceDocumentId: "doc-notice-headingley-2" },
      { id: "ho-headingley-2-in", tenancyId: "ten-headingley-2", direction: "move_in", status: "open", dueOn: day(6) },
      { id: "ho-headingley-4-in", tenancyId: "ten-headingley-4", direction: "move_in", status: "completed", dueOn: day(-45), completedAt: at(-45, "11:00"), meterReadings: [{ meter: "electricity", reading: "07788", readOn: day(-45) }, { meter: "gas", reading: "02231.9", readOn: day(-45) }] },
      { id: "ho-ancoats-3-in", tenancyId: "ten-ancoats-3", direction: "move_in", status: "completed", dueOn: day(-400), completedAt: at(-400, "10:20"), meterReadings: [{ meter: "electricity", reading: "40012", readOn: day(-400) }, { meter: "water", reading: "00120", readOn: day(-400) }] },
      { id: "ho-ancoats-3-out", tenancyId: "ten-ancoats-3", direction: "move_out", status: "completed", dueOn: day(-12), completedAt: at(-12, "13:40"), meterReadings: [{ meter: "electricity", reading: "43377", readOn: day(-12) }, { meter: "water", reading: "00298", readOn: day(-12) }], forwardingAddress: "Flat 9, 30 Great Ancoats Street, Manchester M4 5AE", noticeEvidenceDocumentId: "doc-notice-ancoats-3" },
      { id: "ho-ancoats-5-in", tenancyId: "ten-ancoats-5", direction: "move_in", status: "completed", dueOn: day(-300), completedAt: at(-300, "16:00"), meterReadings: [{ meter: "electricity", reading: "12001", readOn: day(-300) }, { meter: "water", reading: "00087", readOn: day(-300) }] },
      { id: "ho-wellington-in", tenancyId: "ten-wellington", direction: "move_in", status: "completed", dueOn: day(-700), completedAt: at(-700, "14:00"), meterReadings: [{ meter: "electricity", reading: "55230", readOn: day(-700) }, { meter: "gas", reading: "20415.0", readOn: day(-700) }, { meter: "water", reading: "01877", readOn: day(-700) }] },
      { id: "ho-wellington-out", tenancyId: "ten-wellington", direction: "move_out", status: "open", dueOn: day(28), forwardingAddress: "21 Gloucester Road, Bristol BS7 8AA", noticeEvidenceDocumentId: "doc-notice-wellington" },
      { id: "ho-harrogate-in", tenancyId: "ten-harrogate", direction: "move_in", status: "completed", dueOn: day(-800), completedAt: at(-800, "10:00"), meterReadings: [{ meter: "electricity", reading: "61002", readOn: day(-800) }, { meter: "gas", reading: "30021.4", readOn: day(-800) }, { meter: "water", reading: "02210", readOn: day(-800) }] },
      { id: "ho-harrogate-out", tenancyId: "ten-harrogate", direction: "move_out", status: "completed", dueOn: day(-60), completedAt: at(-60, "12:15"), meterReadings: [{ meter: "electricity", reading: "66490", readOn: day(-60) }, { meter: "gas", reading: "33105.8", readOn: day(-60) }, { meter: "water", reading: "02675", readOn: day(-60) }], forwardingAddress: "3 The Crescent, York YO24 1AW", noticeEvidenceDocumentId: "doc-notice-harrogate" },
    ],

    repairs: [
      { id: "rep-1031", reference: "R-1031", status: "completed", propertyId: "prop-ashby-court", unitId: "unit-ashby-1a" },
      { id: "rep-1042", reference: "R-1042", status: "in_progress", propertyId: "prop-ashby-court", unitId: "unit-ashby-2b" },
      { id: "rep-1043", reference: "R-1043", status: "completed", propertyId: "prop-ashby-court", unitId: "unit-ashby-2b" },
      { id: "rep-1051", reference: "R-1051", status: "reported", propertyId: "prop-ancoats-works", unitId: "unit-ancoats-3" },
      { id: "rep-1052", reference: "R-1052", status: "completed", propertyId: "prop-ancoats-works", unitId: "unit-ancoats-3" },
      { id: "rep-1060", reference: "R-1060", status: "cancelled", propertyId: "prop-ancoats-works", unitId: "unit-ancoats-5" },
      { id: "rep-1070", reference: "R-1070", status: "awaiting_contractor", propertyId: "prop-wellington-road", unitId: "unit-wellington" },
      { id: "rep-1075", reference: "R-1075", status: "in_progress", propertyId: "prop-headingley-mews", unitId: "unit-headingley-4" },
    ],
    tasks: [
      { id: "task-reseal-shower", title: "Reseal shower tray – Flat 2B Ashby Court", subjectKind: "unit", subjectId: "unit-ashby-2b", assigneeUserId: "usr-priya", priority: "normal", dueOn: day(3), status: "open", createdByUserId: "usr-priya" },
      { id: "task-ancoats-3-deposit", title: "Agree deposit deductions with Liam O'Brien", subjectKind: "tenancy", subjectId: "ten-ancoats-3", assigneeUserId: "usr-marcus", priority: "high", dueOn: day(2), status: "in_progress", createdByUserId: "usr-owen" },
      { id: "task-ashby-1a-smoke", title: "Replace hallway smoke alarm – Flat 1A", subjectKind: "unit", subjectId: "unit-ashby-1a", assigneeContactId: "con-avon-plumbing", priority: "urgent", dueOn: day(-195), status: "done", doneAt: at(-196, "15:00"), createdByUserId: "usr-priya" },
      { id: "task-gas-cert-wellington", title: "Chase gas safety certificate – 23 Wellington Road", subjectKind: "property", subjectId: "prop-wellington-road", assigneeUserId: "usr-priya", priority: "urgent", dueOn: day(-2), status: "open", createdByUserId: "usr-hannah" },
      { id: "task-carpet-clean-7", title: "Book carpet clean – Flat 7 Ashby Court", subjectKind: "unit", subjectId: "unit-ashby-7", assigneeContactId: "con-cleanright", priority: "low", dueOn: day(1), status: "cancelled", createdByUserId: "usr-priya" },
      { id: "task-send-offer-noah", title: "Send tenancy offer to Noah Williams", subjectKind: "contact", subjectId: "con-noah-williams", assigneeUserId: "usr-priya", priority: "high", dueOn: day(1), status: "open", createdByUserId: "usr-priya" },
      { id: "task-recut-key-ancoats-3", title: "Recut spare key – Apartment 3 Ancoats Works", subjectKind: "key_set", subjectId: "ks-ancoats-3-spare", assigneeContactId: "con-pennine-locks", priority: "normal", dueOn: day(5), status: "in_progress", createdByUserId: "usr-owen" },
      { id: "task-fire-doors-ancoats", title: "Fire door survey – Ancoats Works", subjectKind: "block", subjectId: "blk-ancoats", assigneeUserId: "usr-owen", priority: "high", dueOn: day(9), status: "open", createdByUserId: "usr-hannah" },
      { id: "task-chapel-deposit", title: "Return deposit – 8 Harrogate Road", subjectKind: "tenancy", subjectId: "ten-harrogate", assigneeUserId: "usr-marcus", priority: "normal", dueOn: day(-50), status: "done", doneAt: at(-52, "10:30"), createdByUserId: "usr-marcus" },
    ],
    inspections: [
      {
        id: "insp-ashby-1a-ci", tenancyId: "ten-ashby-1a", kind: "check_in", reference: "CI-1A-01", status: "completed", outcome: "satisfactory", dueOn: day(-200), bookedFor: at(-200, "09:00"), completedAt: at(-200, "10:05"),
        findings: [
          { id: "fnd-ashby-1a-1", area: "Kitchen", item: "Cold tap dripping", repairId: "rep-1031" },
          { id: "fnd-ashby-1a-2", area: "Hallway", item: "Smoke alarm chirping", taskId: "task-ashby-1a-smoke" },
        ],
      },
      {
        id: "insp-ashby-2b-ci", tenancyId: "ten-ashby-2b", kind: "check_in", reference: "CI-2B-01", status: "completed", outcome: "minor_actions", dueOn: day(-340), bookedFor: at(-340, "09:30"), completedAt: at(-340, "11:00"),
        findings: [
          { id: "fnd-ashby-2b-1", area: "Kitchen", item: "Extractor fan not working", repairId: "rep-1042" },
          { id: "fnd-ashby-2b-2", area: "Bathroom", item: "Shower seal mouldy", taskId: "task-reseal-shower" },
          { id: "fnd-ashby-2b-3", area: "Bedroom", item: "Window latch loose", repairId: "rep-1043" },
          { id: "fnd-ashby-2b-4", area: "Living room", item: "Small carpet stain by door" },
        ],
      },
      { id: "insp-ashby-2b-co", tenancyId: "ten-ashby-2b", kind: "check_out", reference: "CO-2B-01", status: "booked", dueOn: day(12), bookedFor: at(12, "10:00") },
      { id: "insp-headingley-2-prev-ci", tenancyId: "ten-headingley-2-prev", kind: "check_in", reference: "CI-HM2-01", status: "completed", outcome: "satisfactory", dueOn: day(-365), completedAt: at(-365, "11:30"), findings: [] },
      { id: "insp-headingley-2-prev-co", tenancyId: "ten-headingley-2-prev", kind: "check_out", reference: "CO-HM2-01", status: "booked", dueOn: day(3), bookedFor: at(3, "14:00") },
      { id: "insp-headingley-2-ci", tenancyId: "ten-headingley-2", kind: "check_in", reference: "CI-HM2-02", status: "booked", dueOn: day(6), bookedFor: at(6, "10:00") },
      { id: "insp-headingley-4-ci", tenancyId: "ten-headingley-4", kind: "check_in", reference: "CI-HM4-01", status: "cancelled", dueOn: day(-45) },
      { id: "insp-ancoats-3-ci", tenancyId: "ten-ancoats-3", kind: "check_in", reference: "CI-AW3-01", status: "completed", outcome: "satisfactory", dueOn: day(-400), completedAt: at(-400, "09:40") },
      { id: "insp-ancoats-3-co-1", tenancyId: "ten-ancoats-3", kind: "check_out", reference: "CO-AW3-01", status: "cancelled", dueOn: day(-14) },
      {
        id: "insp-ancoats-3-co-2", tenancyId: "ten-ancoats-3", kind: "check_out", reference: "CO-AW3-02", status: "completed", outcome: "unsatisfactory", dueOn: day(-12), bookedFor: at(-12, "12:00"), completedAt: at(-12, "13:30"),
        findings: [
          { id: "fnd-ancoats-3-1", area: "Kitchen", item: "Oven door glass cracked", repairId: "rep-1051" },
          { id: "fnd-ancoats-3-2", area: "Living room", item: "Holes in wall from shelving", repairId: "rep-1052" },
          { id: "fnd-ancoats-3-3", area: "Bedroom", item: "Mattress stained", taskId: "task-ancoats-3-deposit" },
        ],
      },
      { id: "insp-ancoats-5-ci", tenancyId: "ten-ancoats-5", kind: "check_in", reference: "CI-AW5-01", status: "completed", outcome: "minor_actions", dueOn: day(-300), completedAt: at(-300, "14:20"), findings: [{ id: "fnd-ancoats-5-1", area: "Bathroom", item: "Extractor noisy", repairId: "rep-1060" }] },
      { id: "insp-wellington-ci", tenancyId: "ten-wellington", kind: "check_in", reference: "CI-WR-01", status: "completed", outcome: "satisfactory", dueOn: day(-700), completedAt: at(-700, "12:00") },
      { id: "insp-wellington-co", tenancyId: "ten-wellington", kind: "check_out", reference: "CO-WR-01", status: "due", dueOn: day(28) },
      { id: "insp-harrogate-ci", tenancyId: "ten-harrogate", kind: "check_in", reference: "CI-HR-01", status: "completed", outcome: "satisfactory", dueOn: day(-800), completedAt: at(-800, "09:00") },
      { id: "insp-harrogate-co", tenancyId: "ten-harrogate", kind: "check_out", reference: "CO-HR-01", status: "completed", outcome: "satisfactory", dueOn: day(-60), completedAt: at(-60, "11:00") },
    ],

    keySets: [
      { id: "ks-ashby-1a-main", reference: "BRS-1A-1", label: "Front door + communal fob", unitId: "unit-ashby-1a", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-aisha-khan", holderName: "Aisha Khan", tenancyId: "ten-ashby-1a" },
      { id: "ks-ashby-1a-works", reference: "BRS-1A-2", label: "Spare set (for contractors)", unitId: "unit-ashby-1a", status: "checked_out", sequence: 2, holderType: "contractor", holderContactId: "con-avon-plumbing", holderName: "Avon Valley Plumbing & Heating" },
      { id: "ks-ashby-2b-main", reference: "BRS-2B-1", label: "Front door + communal fob", unitId: "unit-ashby-2b", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-chloe-martin", holderName: "Chloe Martin" },
      { id: "ks-ashby-2b-spare", reference: "BRS-2B-2", label: "Spare set", unitId: "unit-ashby-2b", status: "in_office", sequence: 2, holderType: "office", holderName: "Bristol office" },
      { id: "ks-ashby-2b-old", reference: "BRS-2B-3", label: "Set lost by the previous tenant", unitId: "unit-ashby-2b", status: "lost", sequence: 3, holderType: "other", holderName: "Unknown" },
      { id: "ks-ashby-7-main", reference: "BRS-07-1", label: "Front door", unitId: "unit-ashby-7", status: "checked_out", sequence: 1, holderType: "contractor", holderContactId: "con-cleanright", holderName: "CleanRight Services" },
      { id: "ks-headingley-2-main", reference: "LDS-HM2-1", label: "Front door", unitId: "unit-headingley-2", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-harry-lewis", holderName: "Harry Lewis", tenancyId: "ten-headingley-2-prev" },
      { id: "ks-headingley-2-spare", reference: "LDS-HM2-2", label: "Spare set", unitId: "unit-headingley-2", status: "in_office", sequence: 2, holderType: "office", holderName: "Leeds office" },
      { id: "ks-headingley-4-main", reference: "LDS-HM4-1", label: "Front door", unitId: "unit-headingley-4", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-ben-taylor", holderName: "Ben Taylor", tenancyId: "ten-headingley-4" },
      { id: "ks-headingley-4-extra", reference: "LDS-HM4-2", label: "Second set", unitId: "unit-headingley-4", status: "checked_out", sequence: 2, holderType: "tenant", holderName: "Ben's partner (not on the tenancy)" },
      { id: "ks-ancoats-3-main", reference: "MAN-AW3-1", label: "Apartment door + fob", unitId: "unit-ancoats-3", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-liam-obrien", holderName: "Liam O'Brien", tenancyId: "ten-ancoats-3" },
      { id: "ks-ancoats-3-spare", reference: "MAN-AW3-2", label: "Spare set", unitId: "unit-ancoats-3", status: "in_office", sequence: 2, holderType: "office", holderName: "Manchester office" },
      { id: "ks-ancoats-5-main", reference: "MAN-AW5-1", label: "Apartment door + fob", unitId: "unit-ancoats-5", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-sophie-chen", holderName: "Sophie Chen", tenancyId: "ten-ancoats-5" },
      { id: "ks-wellington-main", reference: "BRS-WR-1", label: "Front and back door", unitId: "unit-wellington", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "con-george-hall", holderName: "George Hall", tenancyId: "ten-wellington" },
      { id: "ks-wellington-landlord", reference: "BRS-WR-2", label: "Landlord's set", unitId: "unit-wellington", status: "checked_out", sequence: 2, holderType: "landlord", holderContactId: "con-david-okafor", holderName: "David Okafor" },
      { id: "ks-harrogate-main", reference: "LDS-HR-1", label: "Front door", unitId: "unit-harrogate", status: "in_office", sequence: 1, holderType: "office", holderName: "Leeds office" },
      { id: "ks-harrogate-viewings", reference: "LDS-HR-2", label: "Viewing set", unitId: "unit-harrogate", status: "checked_out", sequence: 2, holderType: "staff", holderName: "Owen Hughes" },
    ],
    keyReports: [
      { id: "kr-ashby-2b-1", keySetId: "ks-ashby-2b-spare", note: "Fob does not open the communal door.", source: { kind: "tenant", id: "con-chloe-martin", label: "Chloe Martin" }, reportedBy: "Chloe Martin", reportedAt: at(-25, "18:05"), cleared: { note: "Fob reprogrammed at the panel.", by: "Priya Shah", at: at(-20, "10:30") } },
      { id: "kr-ashby-2b-2", keySetId: "ks-ashby-2b-spare", note: "Key turns but the flat door will not open; lock may have been changed.", source: { kind: "contractor", id: "con-avon-plumbing", label: "Avon Valley Plumbing & Heating" }, reportedBy: "Gary Hughes", reportedAt: at(-3, "08:40"), cleared: null },
      { id: "kr-ancoats-3-1", keySetId: "ks-ancoats-3-spare", note: "Spare key is bent.", source: { kind: "inspection", id: "insp-ancoats-3-co-2", label: "Check-out CO-AW3-02" }, reportedBy: "Owen Hughes", reportedAt: at(-12, "13:20"), cleared: null },
      { id: "kr-wellington-1", keySetId: "ks-wellington-landlord", note: "Back door key sticks.", source: { kind: "repair", id: "rep-1070", label: "R-1070" }, reportedBy: "David Okafor", reportedAt: at(-30, "17:00"), cleared: { note: "Lock lubricated; works now.", by: "Avon Valley Plumbing & Heating", at: at(-28, "09:15") } },
      { id: "kr-harrogate-1", keySetId: "ks-harrogate-main", note: "Worn; hard to turn.", source: { kind: "staff", id: "usr-owen", label: "Owen Hughes" }, reportedBy: "Owen Hughes", reportedAt: at(-1, "16:45"), cleared: null },
    ],

    contractorInvoices: [
      {
        id: "inv-avon-1001", subjectKind: "repair", subjectId: "rep-1042", subjectLabel: "R-1042 Extractor fan", propertyId: "prop-ashby-court", tenancyId: "ten-ashby-2b", contractorContactId: "con-avon-plumbing",
        number: "AVP-1001", issuedOn: day(-2), dueOn: day(28), borneBy: "landlord", documentId: "doc-inv-avp-1001",
        lines: [line("ln-avon-1001-1", "labour", "Replace kitchen extractor fan (1.5 h)", 9000), line("ln-avon-1001-2", "materials", "Extractor fan unit", 6450)],
      },
      {
        id: "inv-avon-0987", subjectKind: "repair", subjectId: "rep-1043", subjectLabel: "R-1043 Window latch", propertyId: "prop-ashby-court", contractorContactId: "con-avon-plumbing",
        number: "AVP-0987", issuedOn: day(-20), dueOn: day(10), borneBy: "landlord", approvedAt: at(-5, "10:00"),
        lines: [line("ln-avon-0987-1", "labour", "Refit bedroom window latch", 4500)],
      },
      {
        id: "inv-spark-2210", subjectKind: "repair", subjectId: "rep-1075", subjectLabel: "R-1075 Consumer unit", propertyId: "prop-headingley-mews", contractorContactId: "con-northern-spark",
        number: "NSE-2210", issuedOn: day(-30), dueOn: day(0), borneBy: "landlord", approvedAt: at(-28, "09:00"),
        lines: [line("ln-spark-2210-1", "labour", "Replace consumer unit (one day)", 32000), line("ln-spark-2210-2", "materials", "18-way consumer unit and breakers", 21500)],
        payments: [
          { id: "pay-spark-2210-1", amountMinor: 30000, paidOn: day(-20), reference: "BACS HL-5531" },
          { id: "pay-spark-2210-2", amountMinor: 30000, paidOn: day(-19), reference: "BACS HL-5540", correctedAt: at(-18, "11:00"), correctionReason: "Entered twice: the bank shows a single payment." },
        ],
      },
      {
        id: "inv-spark-2198", subjectKind: "repair", subjectId: "rep-1075", subjectLabel: "R-1075 Fault finding", propertyId: "prop-headingley-mews", contractorContactId: "con-northern-spark",
        number: "NSE-2198", issuedOn: day(-45), dueOn: day(-15), borneBy: "landlord", approvedAt: at(-44, "15:00"),
        lines: [line("ln-spark-2198-1", "labour", "Fault finding: tripping RCD", 8500)],
        payments: [{ id: "pay-spark-2198-1", amountMinor: gross(8500), paidOn: day(-16), reference: "BACS HL-5402" }],
      },
      {
        id: "inv-pennine-311", subjectKind: "key_set", subjectId: "ks-ancoats-3-spare", subjectLabel: "Spare set MAN-AW3-2", propertyId: "prop-ancoats-works", contractorContactId: "con-pennine-locks",
        number: "PL-311", issuedOn: day(-10), dueOn: day(20), borneBy: "agency", disputedAt: at(-6, "14:00"), disputeReason: "Charged for two call-outs; only one visit took place.", disputedMinor: gross(6000),
        lines: [line("ln-pennine-311-1", "labour", "Call-out (x2)", 12000), line("ln-pennine-311-2", "materials", "Key blanks", 1800)],
      },
      {
        id: "inv-cleanright-77", subjectKind: "tenancy", subjectId: "ten-harrogate", subjectLabel: "End-of-tenancy clean", propertyId: "prop-harrogate-road", tenancyId: "ten-harrogate", contractorContactId: "con-cleanright",
        number: "CR-0077", issuedOn: day(-55), dueOn: day(-25), borneBy: "landlord", approvedAt: at(-54, "09:30"),
        lines: [line("ln-cleanright-77-1", "labour", "End-of-tenancy clean, 3-bed house", 22000)],
        creditNotes: [{ id: "cn-cleanright-77-1", number: "CR-CN-0012", issuedOn: day(-40), netMinor: 22000, vatMinor: vat(22000), reason: "Clean not to standard; re-done free and invoice cancelled by credit.", documentId: "doc-cn-cr-0012" }],
      },
      {
        id: "inv-avon-0950", subjectKind: "property", subjectId: "prop-wellington-road", subjectLabel: "23 Wellington Road", propertyId: "prop-wellington-road", contractorContactId: "con-avon-plumbing",
        number: "AVP-0950", issuedOn: day(-35), dueOn: day(-5), borneBy: "landlord", voidedAt: at(-33, "12:00"), voidReason: "Issued to the wrong property; replaced by AVP-0951.",
        lines: [line("ln-avon-0950-1", "labour", "Boiler service", 7500)],
      },
      {
        id: "inv-pennine-318", subjectKind: "tenancy", subjectId: "ten-ancoats-3", subjectLabel: "Lock change after lost key", propertyId: "prop-ancoats-works", tenancyId: "ten-ancoats-3", contractorContactId: "con-pennine-locks",
        number: "PL-318", issuedOn: day(-11), dueOn: day(19), borneBy: "tenant", approvedAt: at(-10, "10:00"),
        lines: [line("ln-pennine-318-1", "labour", "Change euro cylinder", 4500), line("ln-pennine-318-2", "materials", "Anti-snap cylinder and three keys", 3500)],
        payments: [{ id: "pay-pennine-318-1", amountMinor: gross(8000), paidOn: day(-4), reference: "BACS HL-5611" }],
        recoveries: [{ id: "rcv-pennine-318-1", amountMinor: 5000, receivedOn: day(-3), reference: "Deposit deduction (part)" }],
      },
      {
        id: "inv-spark-2225", subjectKind: "repair", subjectId: "rep-1075", subjectLabel: "R-1075 Rewire (stage 1)", propertyId: "prop-headingley-mews", contractorContactId: "con-northern-spark",
        number: "NSE-2225", issuedOn: day(-14), dueOn: day(16), borneBy: "landlord", approvedAt: at(-13, "09:00"),
        lines: [line("ln-spark-2225-1", "labour", "Rewire kitchen circuits", 15000)],
        authorisation: { id: "auth-wo-5521", basis: "works_order_limit", authorisedMinor: 25000, authorisedCurrency: "GBP" },
      },
      {
        id: "inv-spark-2231", subjectKind: "repair", subjectId: "rep-1075", subjectLabel: "R-1075 Rewire (stage 2)", propertyId: "prop-headingley-mews", contractorContactId: "con-northern-spark",
        number: "NSE-2231", issuedOn: day(-3), dueOn: day(27), borneBy: "landlord", approvedAt: at(-2, "16:00"),
        lines: [line("ln-spark-2231-1", "labour", "Rewire hallway and bedrooms", 14000), line("ln-spark-2231-2", "materials", "Cable, back boxes, accessories", 4000)],
        authorisation: { id: "auth-wo-5521", basis: "works_order_limit", authorisedMinor: 25000, authorisedCurrency: "GBP" },
        limitOverride: {
          id: "lo-spark-2231", state: "exceeded", basis: "works_order_limit", authorisedMinor: 25000, authorisedCurrency: "GBP", earlierMinor: 15000,
          chargedMinor: 18000, excessMinor: 8000, reason: "Further faulty wiring found behind the hallway panel; landlord agreed the extra cost by phone.", userId: "usr-hannah", createdAt: at(-2, "15:55"),
        },
      },
      {
        id: "inv-legacy-0042", subjectKind: "property", subjectId: "prop-harrogate-road", subjectLabel: "8 Harrogate Road", propertyId: "prop-harrogate-road", contractorContactId: "con-northern-spark",
        number: "NSE-0042", issuedOn: day(-400), dueOn: day(-370), borneBy: "landlord", legacy: true, legacyStatus: "PAID", legacySettled: true, approvedAt: at(-399, "09:00"),
        lines: [line("ln-legacy-0042-1", "labour", "Electrical installation condition report", 15000)],
        payments: [{ id: "pay-legacy-0042-1", amountMinor: gross(15000), paidOn: day(-372), reference: "Imported from the previous system", legacy: true }],
      },
    ],

    calendarEvents: [
      { id: "ev-key-handback-ancoats-3", title: "Key handback – Apartment 3, Ancoats Works", kind: "key_handover", subjectKind: "tenancy", subjectId: "ten-ancoats-3", startsAt: at(0, "16:00"), endsAt: at(0, "16:30"), location: "Manchester office", propertyId: "prop-ancoats-works", staffUserId: "usr-owen", contactId: "con-liam-obrien", createdByUserId: "usr-owen" },
      { id: "ev-viewing-ashby-7", title: "Viewing – Flat 7, Ashby Court", kind: "viewing", subjectKind: "unit", subjectId: "unit-ashby-7", startsAt: at(1, "10:00"), endsAt: at(1, "10:30"), location: "12 Coronation Road, Bristol BS3 1AS", propertyId: "prop-ashby-court", staffUserId: "usr-priya", contactId: "con-noah-williams", createdByUserId: "usr-priya" },
      { id: "ev-viewing-cancelled", title: "Viewing – Flat 2, Headingley Mews", kind: "viewing", subjectKind: "unit", subjectId: "unit-headingley-2", startsAt: at(2, "17:30"), endsAt: at(2, "18:00"), status: "cancelled", propertyId: "prop-headingley-mews", staffUserId: "usr-owen", cancelReason: "Applicant found another flat.", cancelledAt: at(-1, "12:10"), createdByUserId: "usr-owen" },
      { id: "ev-checkout-headingley-2-prev", title: "Check-out – Flat 2, Headingley Mews", kind: "inspection", subjectKind: "inspection", subjectId: "insp-headingley-2-prev-co", startsAt: at(3, "14:00"), endsAt: at(3, "15:30"), location: "41 Cardigan Road, Leeds LS6 3BE", propertyId: "prop-headingley-mews", staffUserId: "usr-owen", contactId: "con-harry-lewis", createdByUserId: "usr-owen" },
      { id: "ev-gas-service-wellington", title: "Annual gas safety check – 23 Wellington Road", kind: "contractor_visit", subjectKind: "property", subjectId: "prop-wellington-road", startsAt: at(4, "08:00"), endsAt: at(4, "09:00"), location: "23 Wellington Road, Bristol BS2 9DA", propertyId: "prop-wellington-road", contactId: "con-avon-plumbing", notes: "Tenant has agreed access; keys not needed.", createdByUserId: "usr-priya" },
      { id: "ev-checkin-headingley-2", title: "Check-in – Flat 2, Headingley Mews", kind: "inspection", subjectKind: "inspection", subjectId: "insp-headingley-2-ci", startsAt: at(6, "10:00"), endsAt: at(6, "11:00"), propertyId: "prop-headingley-mews", staffUserId: "usr-owen", contactId: "con-ella-wright", createdByUserId: "usr-owen" },
      { id: "ev-review-northgate", title: "Quarterly review with Northgate Residential", kind: "meeting", subjectKind: "contact", subjectId: "con-northgate", startsAt: at(8, "14:00"), endsAt: at(8, "15:00"), location: "Ancoats Works, site office", propertyId: "prop-ancoats-works", staffUserId: "usr-hannah", contactId: "con-northgate", createdByUserId: "usr-hannah" },
      { id: "ev-fire-alarm-ancoats", title: "Weekly fire alarm test – Ancoats Works", kind: "compliance", subjectKind: "block", subjectId: "blk-ancoats", startsAt: at(9, "11:00"), endsAt: at(9, "11:30"), propertyId: "prop-ancoats-works", staffUserId: "usr-owen", createdByUserId: "usr-hannah" },
      { id: "ev-midterm-headingley-4", title: "Mid-term inspection – Flat 4, Headingley Mews", kind: "inspection", subjectKind: "tenancy", subjectId: "ten-headingley-4", startsAt: at(10, "09:00"), endsAt: at(10, "10:00"), status: "cancelled", propertyId: "prop-headingley-mews", staffUserId: "usr-owen", contactId: "con-ben-taylor", cancelReason: "Tenant asked to move it; to be rebooked.", cancelledAt: at(-1, "09:00"), createdByUserId: "usr-owen" },
      { id: "ev-checkout-ashby-2b", title: "Check-out – Flat 2B, Ashby Court", kind: "inspection", subjectKind: "inspection", subjectId: "insp-ashby-2b-co", startsAt: at(12, "10:00"), endsAt: at(12, "12:00"), location: "12 Coronation Road, Bristol BS3 1AS", propertyId: "prop-ashby-court", staffUserId: "usr-priya", contactId: "con-chloe-martin", createdByUserId: "usr-priya" },
      { id: "ev-rent-review-ashby-1a", title: "Rent review call – Aisha Khan", kind: "call", subjectKind: "tenancy", subjectId: "ten-ashby-1a", startsAt: at(13, "12:30"), endsAt: at(13, "12:45"), propertyId: "prop-ashby-court", staffUserId: "usr-marcus", contactId: "con-aisha-khan", createdByUserId: "usr-marcus" },
      {
        id: "ev-viewing-done", title: "Viewing – Flat 7, Ashby Court", kind: "viewing", subjectKind: "unit", subjectId: "unit-ashby-7", startsAt: at(-2, "17:00"), endsAt: at(-2, "17:30"), status: "completed", propertyId: "prop-ashby-court", staffUserId: "usr-priya", contactId: "con-noah-williams",
        outcome: "attended", outcomeNote: "Liked the flat; asked about parking.", outcomeRecordedAt: at(-2, "17:45"),
        feedback: { interest: "keen", themes: ["light", "location", "parking"], nextAction: "send_offer", note: "Wants to move in within a month." }, followUpTaskId: "task-send-offer-noah", createdByUserId: "usr-priya",
      },
      { id: "ev-viewing-no-show", title: "Viewing – 8 Harrogate Road", kind: "viewing", subjectKind: "property", subjectId: "prop-harrogate-road", startsAt: at(-1, "11:00"), endsAt: at(-1, "11:30"), status: "completed", propertyId: "prop-harrogate-road", staffUserId: "usr-owen", outcome: "no_show", outcomeNote: "Waited 20 minutes; phone off.", outcomeRecordedAt: at(-1, "11:35"), createdByUserId: "usr-owen" },
    ],

    smsThreads: [
      { id: "sms-chloe-martin", localNumber: "+441174960000", address: "+447700900201", contactId: "con-chloe-martin", lastMessageAt: at(-1, "18:42"), lastInboundAt: at(-1, "18:42"), preview: "Is someone coming about the extractor fan this week?" },
      { id: "sms-ben-taylor", localNumber: "+441134960000", address: "+447700900204", contactId: "con-ben-taylor", lastMessageAt: at(-3, "09:12"), lastInboundAt: at(-3, "09:05"), preview: "Thanks, Tuesday works for the inspection." },
      { id: "sms-unknown-enquiry", localNumber: "+441134960000", address: "+447700900999", lastMessageAt: at(0, "08:03"), lastInboundAt: at(0, "08:03"), preview: "Hi, is the flat on Cardigan Road still available?" },
      { id: "sms-gary-hughes", localNumber: "+441174960000", address: "+447700900311", contactId: "con-gary-hughes", lastMessageAt: at(-2, "07:55"), lastInboundAt: at(-2, "07:50"), preview: "Key for 2B doesn't work, can someone call me?" },
      { id: "sms-george-hall", localNumber: "+441174960000", address: "+447700900210", contactId: "con-george-hall", lastMessageAt: at(-9, "20:14"), lastInboundAt: at(-9, "20:14"), preview: "STOP", stopped: true },
    ],
    landlordPortalAccess: [
      { contactId: "con-margaret-ellis", status: "active", invitedAt: at(-90, "10:00"), acceptedAt: at(-89, "19:20") },
      { contactId: "con-northgate", status: "pending", invitedAt: at(-3, "11:00") },
      { contactId: "con-david-okafor", status: "revoked", invitedAt: at(-200, "10:00"), acceptedAt: at(-199, "08:30"), revokedAt: at(-30, "16:00") },
    ],
    onboardingCheckouts: [
      { id: "chk-maintenance-pro", moduleId: "maintenance-pro", status: "paid", startedAt: at(-120, "10:00") },
      { id: "chk-telephony", moduleId: "telephony", status: "started", startedAt: at(-1, "15:20") },
    ],
  };
}
