/**
 * Block compliance facts: what a block records itself, what it inherits
 * from its property, and where each value comes from.
 */

/** The five facts, in the common interface's order. */
export const factNames = [
  "storeyOver11m",
  "builtBefore2000",
  "fireAlarm",
  "emergencyLighting",
  "communalWater",
] as const;
/** A fact name. */
export type FactName = (typeof factNames)[number];
/** A fact value. */
export type FactValue = "yes" | "no" | "unknown";
/** Where an effective value comes from. */
export type FactSource = "own" | "property" | "default";

const values = new Set<string>(["yes", "no", "unknown"]);

/** The facts a stored object records: only the five names, only valid values; anything else counts as not recorded. */
export function recordedFacts(stored: unknown): Partial<Record<FactName, FactValue>> {
  const out: Partial<Record<FactName, FactValue>> = {};
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return out;
  for (const name of factNames) {
    const value = (stored as Record<string, unknown>)[name];
    if (typeof value === "string" && values.has(value)) out[name] = value as FactValue;
  }
  return out;
}

/** A block's facts as the profile shows them. */
export interface ResolvedFacts {
  facts: Record<FactName, FactValue>;
  /** The block's own values; `unknown` where it records nothing (`factSources` then says `property` or `default`). */
  ownFacts: Record<FactName, FactValue>;
  factSources: Record<FactName, FactSource>;
}

/**
 * Each effective fact is the block's own recorded value (an explicit `unknown` included), else its property's
 * recorded value, else `unknown` by default. An own fact the block records nothing for is `unknown` too
 * (the fact set holds strings only): `factSources` tells it from an explicit one.
 */
export function resolveFacts(blockFacts: unknown, propertyFacts: unknown): ResolvedFacts {
  const own = recordedFacts(blockFacts);
  const inherited = recordedFacts(propertyFacts);
  const facts = {} as ResolvedFacts["facts"];
  const ownFacts = {} as ResolvedFacts["ownFacts"];
  const factSources = {} as ResolvedFacts["factSources"];
  for (const name of factNames) {
    ownFacts[name] = own[name] ?? "unknown";
    if (own[name]) {
      facts[name] = own[name];
      factSources[name] = "own";
    } else if (inherited[name]) {
      facts[name] = inherited[name];
      factSources[name] = "property";
    } else {
      facts[name] = "unknown";
      factSources[name] = "default";
    }
  }
  return { facts, ownFacts, factSources };
}
