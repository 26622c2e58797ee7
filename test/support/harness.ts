/** One test file's world: its own database, the app over it, and helpers to make workspaces, keys and calls. */
import { afterAll, setDefaultTimeout } from "bun:test";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/log.ts";
import { Jobs } from "../../src/core/jobs.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { createWorkspace, entitle } from "../../src/core/workspaces.ts";
import { createApiKey } from "../../src/core/api_keys.ts";
import { allScopes } from "../../src/core/groups.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { Rows } from "./rows.ts";
import { ulid } from "ulid";

/** A workspace made for a test, with a key holding every scope. */
export interface TestWorkspace {
  id: string;
  slug: string;
  ownerUserId: string;
  /** A key with every scope, created by the owner. */
  key: string;
  keyId: string;
}

/** An answer as tests read it. */
export interface TestResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** The harness of one test file. */
export interface Harness {
  database: TestDatabase;
  ctx: AppContext;
  app: ReturnType<typeof buildApp>;
  /** Makes a workspace (entitled to every module) with an all-scopes owner key. */
  workspace(options?: { modules?: string[] }): Promise<TestWorkspace>;
  /** Inserts a workspace's shared rows (contacts, users, properties, units, tenancies) straight into the database. */
  rows(ws: { id: string }): Rows;
  /** Makes another key for a workspace. */
  key(ws: TestWorkspace, scopes: string[], options?: { createdBy?: string; budgetPerMinute?: number }): Promise<string>;
  /** Sends a request through app.handle. */
  request<T = any>(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse<T>>;
}

/** Sets up a harness for the file; its database is dropped after the file's tests. */
export async function harness(): Promise<Harness> {
  // Bun applies a preload's setDefaultTimeout to the first test file only: each file that builds a harness sets
  // its own (tests that start workers, servers or subprocesses need more than 5 s on a loaded 2-core machine).
  setDefaultTimeout(30_000);
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    CHECK_RESPONSES: "true",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
  });
  const log = createLogger(config.logLevel);
  const ctx: AppContext = { db: database.db, config, log, jobs: new Jobs(database.url, log) };
  const app = buildApp(ctx);
  afterAll(async () => {
    await ctx.jobs.stop(2000).catch(() => {});
    await database.drop();
  });
  const h: Harness = {
    database,
    ctx,
    app,
    async workspace(options = {}) {
      const slug = `ws-${ulid().toLowerCase()}`;
      const ws = await createWorkspace(database.db, {
        slug,
        name: `Workspace ${slug}`,
        ownerEmail: `owner@${slug}.test`,
      });
      for (const m of options.modules ?? ["maintenance-pro", "telephony"]) await entitle(database.db, slug, m);
      const k = await createApiKey(database.db, {
        workspace: slug,
        name: "all",
        scopes: [...allScopes],
        expiresInDays: 30,
      });
      return { ...ws, key: k.key, keyId: k.id };
    },
    rows: (ws) => new Rows(database.db, ws.id),
    async key(ws, scopes, options = {}) {
      const k = await createApiKey(database.db, {
        workspace: ws.slug,
        name: "test",
        scopes,
        expiresInDays: 30,
        ...options,
      });
      return k.key;
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (options.key) headers["x-api-key"] = options.key;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed as any, text, headers: res.headers };
    },
  };
  return h;
}
