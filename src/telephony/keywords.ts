/** The opt-out and opt-in keywords of inbound SMS (what UK carriers and Twilio honour). */

const stopWords = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"]);
const startWords = new Set(["START", "UNSTOP", "YES"]);

/**
 * What an inbound text asks for by its first word, case and surrounding spaces ignored (and punctuation after the
 * word: `Stop.`): `stop` (opt out), `start` (opt back in) or nothing (HELP included: stored like any message).
 */
export function optKeyword(body: string): "stop" | "start" | undefined {
  const first = (body.trim().split(/\s+/)[0] ?? "").replace(/[.!,;:?]+$/, "").toUpperCase();
  if (stopWords.has(first)) return "stop";
  if (startWords.has(first)) return "start";
  return undefined;
}
