/**
 * Operations made for the MCP tests only: they succeed without any group's data, so the success path (path, query and
 * body fields in one input, another success status, array results, replayed bytes) is tested whatever the real
 * operations answer today.
 */
import { Type } from "@sinclair/typebox";
import { operation, RawJson, Reply } from "../../src/core/operation.ts";
import { DateOn, Id, Instant, Nullable, Strict } from "../../src/core/schema.ts";

/** Echoes its path, query and body values back (201). */
export const echo = operation({
  id: "probes.echo",
  group: "tasks",
  method: "POST",
  path: "/probes/:probeId/echo",
  summary: "Echoes its input.",
  description: "A test operation.",
  status: 201,
  params: Strict({ probeId: Id }),
  query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })), loud: Type.Optional(Type.Boolean()) }),
  body: Strict({
    note: Type.String({ minLength: 1 }),
    tags: Type.Array(Type.String()),
    nested: Type.Optional(Strict({ n: Type.Number() })),
  }),
  response: Strict({
    probeId: Type.String(),
    limit: Type.Union([Type.Integer(), Type.Null()]),
    loud: Type.Boolean(),
    note: Type.String(),
    tags: Type.Array(Type.String()),
    nested: Type.Union([Strict({ n: Type.Number() }), Type.Null()]),
    workspaceId: Type.String(),
  }),
  hints: { destructive: false, idempotent: false },
  run: async ({ params, query, body, principal }) => ({
    probeId: params.probeId,
    limit: query.limit ?? null,
    loud: query.loud ?? false,
    note: body.note,
    tags: body.tags,
    nested: body.nested ?? null,
    workspaceId: principal.workspaceId,
  }),
});

/** A plain array answer, with a Link header like the paginated operations. */
export const list = operation({
  id: "probes.list",
  group: "calendar",
  method: "GET",
  path: "/probes",
  summary: "Lists probes.",
  description: "A test operation.",
  query: Type.Object({ cursor: Type.Optional(Type.String()) }),
  response: Type.Array(
    Strict({
      id: Id,
      at: Instant,
      on: Nullable(DateOn),
      amountMinor: Type.Integer(),
      ratio: Type.Number(),
      kind: Type.Union([Type.Literal("a"), Type.Literal("b")]),
    }),
  ),
  run: async ({ url }) => {
    const next = new URL(url);
    next.searchParams.set("cursor", "c2");
    return new Reply(
      [
        {
          id: "b",
          at: "2026-11-22T09:30:00.000Z",
          on: "2026-11-22",
          amountMinor: -120,
          ratio: 0.1,
          kind: "b" as const,
        },
        {
          id: "a",
          at: "2026-11-22T09:30:00.000Z",
          on: null,
          amountMinor: 9007199254740991,
          ratio: 1e-7,
          kind: "a" as const,
        },
      ],
      200,
      { link: `<${next}>; rel="next"` },
    );
  },
});

/** Replays stored bytes, as an idempotent retry does (the handler never built the value). */
export const replay = operation({
  id: "probes.replay",
  group: "contacts",
  method: "PUT",
  path: "/probes/replay",
  summary: "Replays stored bytes.",
  description: "A test operation.",
  response: Type.Object({ b: Type.Integer(), a: Type.String() }),
  hints: { idempotent: true, destructive: true },
  run: async () =>
    new Reply<{ b: number; a: string }>(new RawJson('{"b":1,"a":"é"}'), 200, { "idempotent-replayed": "true" }),
});

/** A module-gated, owner-only operation. */
export const guarded = operation({
  id: "probes.guarded",
  group: "maintenance-pro",
  method: "DELETE",
  path: "/probes/guarded",
  ownerOnly: true,
  summary: "Owner only.",
  description: "A test operation.",
  response: Strict({ ok: Type.Boolean() }),
  run: async () => ({ ok: true }),
});

/** The test operations. */
export const probes = [echo, list, replay, guarded];
