/** Schemas of the compliance group: block compliance profiles. */
import { Type, type TSchema } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";
import { factNames, type FactName } from "./facts.ts";

/** A fact value. */
export const FactValue = Type.Union([Type.Literal("yes"), Type.Literal("no"), Type.Literal("unknown")]);

/** What each fact drives, for the OpenAPI descriptions. */
export const factMeaning: Record<FactName, string> = {
  storeyOver11m:
    "A storey more than 11 metres above ground: the communal and flat entrance fire doors need regular checks " +
    "(Fire Safety (England) Regulations 2022).",
  builtBefore2000:
    "Built before the year 2000: asbestos may be present, so the duty to manage asbestos applies (Control of " +
    "Asbestos Regulations 2012, regulation 4).",
  fireAlarm: "A communal fire alarm system: weekly tests (BS 5839-1).",
  emergencyLighting: "Emergency lighting: monthly function tests and an annual full-duration test (BS 5266-1).",
  communalWater: "Communal water systems (tanks, shared supplies): a Legionella risk assessment (HSE ACoP L8).",
};

function perFact(value: (name: FactName) => TSchema, description: string, title: string) {
  return Strict(Object.fromEntries(factNames.map((name) => [name, value(name)])) as Record<FactName, TSchema>, {
    description,
    title,
  });
}

/** The effective facts of a block. */
export const FactSet = perFact(
  (name) => ({ ...FactValue, description: factMeaning[name] }),
  "The effective value of each fact: `yes`, `no` or `unknown`.",
  "BlockFacts",
);

/** The facts the block records itself. */
export const OwnFactSet = perFact(
  (name) => ({ ...FactValue, description: factMeaning[name] }),
  "The values the block records itself: `yes`, `no` or `unknown`, never `null`. A fact the block records nothing " +
    "for is `unknown` here; `factSources` tells an explicit value (`own`) from one the block does not record " +
    "(`property` or `default`, the effective value then coming from its property or the default).",
  "BlockOwnFacts",
);

/** Where each effective fact comes from. */
export const FactSources = perFact(
  () => Type.Union([Type.Literal("own"), Type.Literal("property"), Type.Literal("default")]),
  "Where each effective value comes from: `own` (the block records it), `property` (inherited from the block's " +
    "property), `default` (recorded nowhere: `unknown`).",
  "BlockFactSources",
);

/** One change to a block's facts. */
export const HistoryEntry = Strict(
  {
    id: Type.String(),
    kind: Type.String({ description: "The kind of change, as recorded with it." }),
    detail: Type.String({ description: "The change in words." }),
    actorUserId: Nullable(Type.String()),
    policyVersion: Type.String({ description: "The fact policy in force when the change was made." }),
    createdAt: Instant,
  },
  { title: "BlockFactHistoryEntry" },
);

/** A block's compliance profile. */
export const BlockProfile = Strict(
  {
    blockId: Id,
    facts: FactSet,
    revision: Type.Integer({
      minimum: -9007199254740991,
      maximum: 9007199254740991,
      description: "Goes up with each change of the block's facts.",
    }),
    policyVersion: Type.String({ description: "The fact policy the block's facts were recorded under." }),
    updatedAt: Nullable(Instant),
    updatedByUserId: Nullable(Type.String()),
    ownFacts: OwnFactSet,
    factSources: FactSources,
    history: Type.Array(HistoryEntry, {
      description: "Changes to the block's facts, newest first (by time, then id).",
    }),
  },
  { title: "BlockComplianceProfile" },
);

/** The query of the block profiles list. */
export const BlockProfilesQuery = Type.Object(
  {
    propertyId: Type.Optional({
      ...Id,
      description: "Only the blocks of this property (an unknown property gives an empty list).",
    }),
  },
  { additionalProperties: false },
);
