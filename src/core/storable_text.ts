/**
 * The rule every string a client sends must keep, whatever its schema: no NUL character and no unpaired UTF-16
 * surrogate. Postgres refuses NUL in text and JSON, and a lone surrogate (which JSON's `\ud800` escapes can
 * carry) has no UTF-8 form; left to the database, either is a failed statement instead of a named refusal.
 */

/** One string that breaks the rule: its JSON pointer and why. */
export interface TextIssue {
  path: string;
  message: string;
}

/** Why a string breaks the rule, or undefined when it keeps it. */
export function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "Text must not contain the NUL character (U+0000)";
  if (!text.isWellFormed()) return "Text must not contain an unpaired UTF-16 surrogate (U+D800 to U+DFFF alone)";
  return undefined;
}

/** Escapes an object key as a JSON pointer token (RFC 6901, as TypeBox's error paths do). */
function token(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The strings of a JSON value (field names included) that break the rule, at most `max`, each with its JSON
 * pointer under `base`. Walks with its own stack: a 64 KiB body can nest deeper than a recursion should go.
 */
export function textIssues(value: unknown, base = "", max = 20): TextIssue[] {
  const issues: TextIssue[] = [];
  // Pushed in reverse so that issues come out in document order; a field name's problem waits its turn too.
  const stack: { value: unknown; path: string; nameProblem?: string }[] = [{ value, path: base }];
  while (stack.length && issues.length < max) {
    const { value: v, path, nameProblem } = stack.pop()!;
    if (nameProblem) {
      issues.push({ path: path.toWellFormed(), message: `Field name: ${nameProblem}` });
    } else if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) issues.push({ path, message: problem });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}/${i}` });
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const at = `${path}/${token(key)}`;
        const problem = textProblem(key);
        stack.push(
          problem
            ? { value: undefined, path: at, nameProblem: problem }
            : { value: (v as Record<string, unknown>)[key], path: at },
        );
      }
    }
  }
  return issues;
}
