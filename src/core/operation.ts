/** One declaration per operation: the REST route, its OpenAPI entry, its scope check and its MCP tool come from it. */
import { Type, type TObject, type TSchema, type Static, type TProperties } from "@sinclair/typebox";
import "./formats.ts";
import type postgres from "postgres";
import type { Db } from "./db.ts";
import type { Principal, TokenLeases } from "./auth.ts";
import type { Config } from "../config.ts";
import type { Logger } from "./log.ts";
import type { Jobs } from "./jobs.ts";
import type { ErrorClass } from "./errors.ts";
import type { Group } from "./groups.ts";

/** An HTTP method an operation uses. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What every operation can reach: the database, the configuration, the job queue, the logger. */
export interface AppContext {
  db: Db;
  config: Readonly<Config>;
  log: Logger;
  /** The job queue (pg-boss is started on first use). */
  jobs: Jobs;
  /** The budget leases of this process (default: the process-wide book). */
  leases?: TokenLeases;
}

/** The arguments an operation's handler receives, already authenticated and validated. */
export interface RunArgs<P, Q, B> {
  app: AppContext;
  db: Db;
  principal: Principal;
  params: P;
  query: Q;
  body: B;
  requestId: string;
  /** The request URL, for building links (pagination). */
  url: URL;
  /**
   * The value of the operation's prefetch, read in the key check's statement: `{ value }` (null when it found
   * nothing); absent when the operation has none or the key was checked before (MCP), then run reads for itself.
   */
  prefetched?: { value: unknown };
}

/**
 * An operation's first read, evaluated inside the key check's own statement so that the request costs one
 * statement instead of two: a scalar subquery that may use `k.workspace_id` (the key's workspace) and must be
 * scoped by it. It is made only when the path parameters match the operation's params schema (the other
 * checks come after the statement): bind them as text (`${x}::text`), never splice them. Its value reaches
 * `run` only after every check of CONTRACT.md §2 passed; without it (invalid parameters, MCP) `run` reads for
 * itself.
 */
export type Prefetch = (db: Db, params: Record<string, string>) => postgres.PendingQuery<postgres.Row[]>;

/** A body already serialised, replayed byte for byte (idempotent retries). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A handler's answer when it needs another status, headers, or a pre-serialised body. */
export class Reply<T = unknown> {
  constructor(
    readonly body: T | RawJson,
    readonly status?: number,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** The declaration of an operation. */
export interface OperationSpec<P extends TObject, Q extends TObject, B extends TSchema, R extends TSchema> {
  /** operationId, e.g. `tasks.cancel`; the MCP tool is named after it with `.` → `_`. */
  id: string;
  group: Group;
  method: Method;
  /** Elysia-style path: `/tasks/:id/cancel`. */
  path: string;
  summary: string;
  /** Prose for integrators: rules, states, errors. Shown in OpenAPI and in the MCP tool description. */
  description: string;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  /** Success status (200 unless stated). */
  status?: number;
  /** The errors this operation itself raises (the shared refusals are added for every operation). */
  errors?: ErrorClass[];
  /** Errors API.md lists for the operation, documented whether or not raised (default: its list for operations 2 to 12). */
  listedErrors?: ErrorClass[];
  /** Only for keys created by the workspace owner (CONTRACT.md §2, check 8). */
  ownerOnly?: boolean;
  /** Not in API.md: an extension this service adds (tagged so in OpenAPI). */
  extension?: boolean;
  /** MCP annotations beyond readOnly (which follows GET). */
  hints?: { destructive?: boolean; idempotent?: boolean };
  /** Response headers the operation may send (documented in OpenAPI). */
  responseHeaders?: Record<string, { description: string }>;
  /** A read made in the key check's statement (see Prefetch). */
  prefetch?: Prefetch;
  run(args: RunArgs<Static<P>, Static<Q>, Static<B>>): Promise<Static<R> | Reply<Static<R>>>;
}

/** A declared operation, as the registry holds it. */
export type Operation = OperationSpec<TObject, TObject, TSchema, TSchema>;

/** Declares an operation (see STYLE.md: one declaration feeds REST, OpenAPI and MCP). */
export function operation<P extends TObject = TObject<{}>, Q extends TObject = TObject<{}>, B extends TSchema = TSchema, R extends TSchema = TSchema>(
  spec: OperationSpec<P, Q, B, R>,
): Operation {
  return spec as unknown as Operation;
}

/** A strict object schema: unknown fields are refused, never stripped. */
export function Strict<T extends TProperties>(properties: T, options: { description?: string; title?: string } = {}) {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** A path parameter or record identifier. */
export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", description: "An identifier: a ULID minted here, or an imported id (1 to 64 characters of A-Z a-z 0-9 _ -)." });
/** A calendar date `YYYY-MM-DD`. */
export const DateOn = Type.String({ format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "Calendar date, YYYY-MM-DD." });
/** An instant, RFC 3339 UTC with milliseconds. */
export const Instant = Type.String({ format: "date-time", description: "Instant, RFC 3339 UTC with milliseconds: 2026-11-22T09:30:00.000Z." });
/** Nullable version of a schema. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
