/** An event type's declaration: its name, the kind of subject it is about, and the schema of its data. */
import type { Static, TSchema } from "@sinclair/typebox";

/** A declared event type: `company.created` with the company body as data. */
export interface EventType<S extends TSchema = TSchema> {
  /** `<subject>.<past-tense verb>`, e.g. `company.created`. */
  readonly name: string;
  /** What `subject.kind` says for this type, e.g. `company`. */
  readonly subjectKind: string;
  /** The schema of `data`: the resource as the API answers it after the change. */
  readonly data: S;
  /** Prose for integrators (OpenAPI `webhooks`). */
  readonly description: string;
}

/** The data of an event type. */
export type EventData<E extends EventType> = E extends EventType<infer S> ? Static<S> : never;

/** Declares an event type (see src/events/registry.ts for the list of every type). */
export function eventType<S extends TSchema>(spec: EventType<S>): EventType<S> {
  return Object.freeze(spec);
}
