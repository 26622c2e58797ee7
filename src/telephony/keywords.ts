/** The opt-out and opt-in keywords of inbound SMS (what UK carriers and Twilio honour). */

// Twilio's default opt-out words (REVOKE and OPTOUT since 2025) and opt-in words.
const stopWords = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"]);
const startWords = new Set(["START", "UNSTOP", "YES"]);

// What may dress the word: punctuation, symbols (most emoji), pictographs, and the code points that shape an emoji
// without being symbols themselves (variation selectors, the keycap mark). Format characters are removed before.
const dressing = String.raw`[\p{P}\p{S}\p{Extended_Pictographic}\u{FE0E}\u{FE0F}\u{20E3}]`;
const before = new RegExp(String.raw`^(?:\s|${dressing})+`, "u");
const after = new RegExp(`${dressing}+$`, "u");

/**
 * The first word of a text as keywords are matched: compatibility forms folded (NFKC: full-width `ＳＴＯＰ` is
 * `STOP`), format characters (zero-width spaces and joiners, \p{Cf}) removed, the punctuation, symbols and emoji
 * before and after the word dropped (`“Stop”`, `STOP🛑`, `Stop-`, `stop。`), upper-cased. Inside the word they stay:
 * `End-of-tenancy` is not `END`.
 */
function firstWord(body: string): string {
  const text = body
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .replace(before, "");
  return (text.split(/\s/u)[0] ?? "").replace(after, "").toUpperCase();
}

/**
 * What an inbound text asks for by its first word (see firstWord): `stop` (opt out), `start` (opt back in) or
 * nothing (HELP included: stored like any message).
 */
export function optKeyword(body: string): "stop" | "start" | undefined {
  const word = firstWord(body);
  if (stopWords.has(word)) return "stop";
  if (startWords.has(word)) return "start";
  return undefined;
}
