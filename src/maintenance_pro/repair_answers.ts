/**
 * The repairs list's answers, kept between requests by each process.
 *
 * Every write of a repair moves its revision in the same transaction (the API's writes, its photos, the import), and
 * a repair is never deleted while its workspace lives (so its id never comes back at a revision already kept): a
 * repair's stored fields at a revision never change. What a page answers for a repair is therefore its stored
 * fields at the revision the page's statement saw, and its clocks computed now. The fields' text and the facts the
 * clocks are computed from are kept by repair and revision. A page reads only ids, revisions and sort keys, then
 * the rows of the repairs whose revision is not kept, in one statement. Decoding whole rows was most of a page's
 * CPU (bench/README.md, "The due list's kept answers"). The clocks' text is kept beside them with the calendar it
 * was computed with and the span of moments it holds for: a clock's status is the only part that moves with now
 * (running until its due instant, breached after it), so the text holds from the latest due of its breached clocks
 * (exclusive) to the earliest due of its running ones.
 */
import type { Db } from "../core/db.ts";
import { repairClocks, type Clock, type ClockContext, type ClockFacts } from "./clocks.ts";
import { repairRowsById, type RepairRow } from "./queries.ts";
import { clockFacts, repairAnswer } from "./repair_rules.ts";

/** A repair's answer at a revision: its text around the clocks, and the facts they are computed from. */
interface KeptAnswer {
  revision: number;
  facts: ClockFacts;
  /** The answer's text up to the value of `clocks`. */
  head: string;
  /** The answer's text after the value of `clocks`. */
  tail: string;
  /** The clocks' text as last computed, while the same calendar and moments after `fromMs` up to `untilMs`. */
  clocks?: KeptClocks;
}

interface KeptClocks {
  text: string;
  calendar: ClockContext["calendar"];
  prsInForceFrom: string | null;
  fromMs: number;
  untilMs: number;
}

/**
 * How many answers a process keeps for one database (the least recently answered go first): a repairs desk's due
 * list for weeks ahead. About 1.5 KB an answer.
 */
export const keptAnswersMax = 20_000;

/** The answers kept for each database (its client), by workspace and repair id. */
const keptByDb = new WeakMap<Db, Map<string, KeptAnswer>>();

/**
 * The answers of a page's repairs as JSON texts, in the page's order: kept ones at the revision the page saw, the
 * others read in one statement (at their revision then, which may be a later one). A repair gone since the page's
 * statement is left out.
 */
export async function repairAnswerTexts(
  db: Db,
  workspaceId: string,
  page: readonly { id: string; revision: number }[],
  context: ClockContext,
): Promise<string[]> {
  let kept = keptByDb.get(db);
  if (!kept) {
    kept = new Map();
    keptByDb.set(db, kept);
  }
  // An instant other than an answer's text (a Temporal instant may be finer than milliseconds) keeps no clocks.
  const nowMs = typeof context.now === "string" ? Date.parse(context.now) : Number.NaN;
  const answers = page.map(({ id, revision }) => {
    const key = keyOf(workspaceId, id);
    const answer = kept.get(key);
    if (answer?.revision !== revision) return undefined;
    keep(kept, key, answer); // answered again: the most recent in the map's order
    return answer;
  });
  const missing = page.filter((_, i) => !answers[i]).map((r) => r.id);
  if (missing.length) {
    const read = new Map<string, KeptAnswer>();
    for (const row of await repairRowsById(db, workspaceId, missing)) {
      const answer = keptAnswer(row, context, nowMs);
      read.set(row.id, answer);
      keep(kept, keyOf(workspaceId, row.id), answer);
    }
    for (const [i, r] of page.entries()) answers[i] ??= read.get(r.id);
  }
  const texts: string[] = [];
  for (const answer of answers) if (answer) texts.push(answer.head + clocksText(answer, context, nowMs) + answer.tail);
  return texts;
}

/** The answer's clocks at `context.now` as text: the kept text when it holds then, else computed (and kept). */
function clocksText(answer: KeptAnswer, context: ClockContext, nowMs: number): string {
  const kept = answer.clocks;
  if (
    kept &&
    kept.calendar === context.calendar &&
    kept.prsInForceFrom === context.prsInForceFrom &&
    kept.fromMs < nowMs &&
    nowMs <= kept.untilMs
  ) {
    return kept.text;
  }
  const clocks = repairClocks(answer.facts, context);
  answer.clocks = keptClocks(clocks, context, nowMs);
  return answer.clocks?.text ?? JSON.stringify(clocks);
}

/**
 * Clocks computed at `nowMs` as kept: their text, and the moments it holds for (after the latest due of the breached
 * ones, up to the earliest due of the running ones); undefined when `nowMs` is not a moment.
 */
function keptClocks(clocks: Clock[], context: ClockContext, nowMs: number): KeptClocks | undefined {
  if (Number.isNaN(nowMs)) return undefined;
  let fromMs = Number.NEGATIVE_INFINITY;
  let untilMs = Number.POSITIVE_INFINITY;
  for (const clock of clocks) {
    // Breached: now is after its due instant; running: now is at it or before.
    if (clock.status === "breached") fromMs = Math.max(fromMs, Date.parse(clock.dueAt));
    if (clock.status === "running") untilMs = Math.min(untilMs, Date.parse(clock.dueAt));
  }
  const text = JSON.stringify(clocks);
  return { text, calendar: context.calendar, prsInForceFrom: context.prsInForceFrom, fromMs, untilMs };
}

/** Stands for the clocks in an answer's text while it is cut in two (stored text never holds U+0000). */
const clocksMark = "\u0000clocks\u0000";
const markText = JSON.stringify(clocksMark);

/** A row's answer as kept: repairAnswer's text, cut where its clocks go, with the clocks it computed. */
function keptAnswer(row: RepairRow, context: ClockContext, nowMs: number): KeptAnswer {
  const answer = repairAnswer(row, context);
  const text = JSON.stringify({ ...answer, clocks: clocksMark });
  const at = text.indexOf(markText);
  return {
    revision: row.revision,
    facts: clockFacts(row),
    head: text.slice(0, at),
    tail: text.slice(at + markText.length),
    clocks: keptClocks(answer.clocks, context, nowMs),
  };
}

/** Keeps an answer as the most recently answered, letting the least recent go beyond keptAnswersMax. */
function keep(kept: Map<string, KeptAnswer>, key: string, answer: KeptAnswer): void {
  kept.delete(key);
  kept.set(key, answer);
  if (kept.size > keptAnswersMax) kept.delete(kept.keys().next().value!);
}

const keyOf = (workspaceId: string, id: string) => `${workspaceId} ${id}`;
