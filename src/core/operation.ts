/** One declaration per operation: the REST route, its OpenAPI entry, its scope check and its MCP tool come from it. */
import type { TObject, TSchema, Static } from "@sinclair/typebox";
import type { Db } from "./db.ts";
import type { KeyCheckRead } from "./key_check_read.ts";
import type { Principal } from "./auth.ts";
import type { TokenLeases } from "./budget.ts";
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
  /** Set once the process is stopping: /health answers 503 ShuttingDown from then on (src/main.ts). */
  draining?: { active: boolean };
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
   * What the operation's key-check read found in the key check's statement: `{ value }` (null when it found
   * nothing); absent when the operation has none or the key was checked before (MCP), then run reads for itself.
   */
  keyCheckRead?: { value: unknown };
}

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
  /**
   * Errors the common interface lists for the operation, documented whether or not raised (default: `apiListedErrors`).
   */
  listedErrors?: ErrorClass[];
  /** Only for keys created by the workspace owner (check 8 of the key checks, src/core/api_description.ts). */
  ownerOnly?: boolean;
  /** Not in the common interface: an extension this service adds (tagged so in OpenAPI). */
  extension?: boolean;
  /** MCP annotations beyond readOnly (which follows GET). */
  hints?: { destructive?: boolean; idempotent?: boolean };
  /** Response headers the operation may send (documented in OpenAPI). */
  responseHeaders?: Record<string, { description: string }>;
  /**
   * A read whose answer carries a strong ETag of its body; `If-None-Match` with it answers 304 Not Modified with no
   * body (after every check: the budget is spent as for any request).
   */
  conditional?: boolean;
  /** A read made in the key check's own statement, scoped by the key's workspace (see core/key_check_read.ts). */
  keyCheckRead?: KeyCheckRead;
  run(args: RunArgs<Static<P>, Static<Q>, Static<B>>): Promise<Static<R> | Reply<Static<R>>>;
}

/** A declared operation, as the registry holds it. */
export type Operation = OperationSpec<TObject, TObject, TSchema, TSchema>;

/** Declares an operation (one declaration feeds REST, OpenAPI and MCP; ARCHITECTURE, The request path). */
export function operation<
  P extends TObject = TObject<Record<never, never>>,
  Q extends TObject = TObject<Record<never, never>>,
  B extends TSchema = TSchema,
  R extends TSchema = TSchema,
>(spec: OperationSpec<P, Q, B, R>): Operation {
  return spec as unknown as Operation;
}
