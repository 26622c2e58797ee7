/**
 * A DATABASE_URL naming a Unix-domain socket libpq's way (`?host=<directory>`): the service migrates, serves and runs
 * its job workers (pg-boss, another driver) over the socket, and opens no TCP connection at all. The Postgres is the
 * test's own, with its socket in its temporary folder; the embedded Postgres's is in /tmp.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../src/core/api_keys.ts";
import { connect, socketOf } from "../../src/core/db.ts";
import { startEmbeddedPostgres } from "../../src/core/embedded_postgres.ts";
import { allScopes } from "../../src/core/groups.ts";
import { createWorkspace, entitle } from "../../src/core/workspaces.ts";
import { invitationEmailed } from "../maintenance_pro/fixtures.ts";
import { startService } from "../support/service.ts";
import { startPrivatePostgres } from "./private_postgres.ts";

// Bun applies the preload's timeout to the first file only; this file starts Postgres and the service.
setDefaultTimeout(60_000);

const pg = await startPrivatePostgres();
afterAll(() => pg.destroy());

test("the host parameter, when a directory, names the socket; other URLs are left alone", () => {
  expect(socketOf("postgres://app@localhost/lettings?host=/var/run/postgresql&sslmode=disable")).toEqual({
    url: "postgres://app@localhost/lettings?sslmode=disable",
    path: "/var/run/postgresql/.s.PGSQL.5432",
  });
  expect(socketOf("postgresql:///lettings?host=/tmp/")).toEqual({
    url: "postgresql:///lettings",
    path: "/tmp/.s.PGSQL.5432",
  });
  expect(socketOf("postgres://app@localhost:6543/lettings?host=/run/pg").path).toBe("/run/pg/.s.PGSQL.6543");
  for (const url of ["postgres://a:b@127.0.0.1:5433/db", "postgres://a@db.example/db?host=db2.example", "not a url"]) {
    expect(socketOf(url)).toEqual({ url });
  }
});

test("over a socket the service migrates, answers and sends its jobs, with no TCP connection", async () => {
  const url = `postgres://postgres@localhost:${pg.port}/postgres?host=${pg.dir}`;
  const service = await startService(url, { WORKERS: "true", DATA_DIR: join(pg.dir, "service") });
  const db = connect(url, { max: 1 });
  try {
    expect((await fetch(`${service.base}/health`)).status).toBe(200);
    const ws = await createWorkspace(db, { slug: "socket", name: "Socket", ownerEmail: "owner@socket.test" });
    await entitle(db, "socket", "maintenance-pro");
    const { key } = await createApiKey(db, {
      workspace: "socket",
      name: "k",
      scopes: [...allScopes],
      expiresInDays: 7,
    });
    // The invitation's email is sent by the pg-boss worker, whose driver connects by itself.
    expect((await invitationEmailed(db, service.base, { ...ws, key, keyId: "" })).status).toBe("sent");
    const sessions = await db<{ application: string; tcp: boolean }[]>`
      select application_name as application, client_addr is not null as tcp
      from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()`;
    expect(sessions.filter((s) => s.application === "lettings-service").length).toBeGreaterThan(0);
    expect(sessions.length).toBeGreaterThan(1); // the request pool and pg-boss's
    expect(sessions.filter((s) => s.tcp)).toEqual([]);
  } finally {
    await db.end({ timeout: 1 });
    await service.stop();
  }
});

test("the embedded Postgres is reached over its socket in /tmp", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lettings-embedded-"));
  chmodSync(dir, 0o755); // as root, Postgres runs as the postgres user, which must reach the folder
  const server = await startEmbeddedPostgres(join(dir, "pg"));
  const db = connect(server.url, { max: 1 });
  try {
    expect(new URL(server.url).searchParams.get("host")).toBe("/tmp");
    const [row] = await db<{ tcp: boolean }[]>`select inet_server_addr() is not null as tcp`;
    expect(row!.tcp).toBe(false);
  } finally {
    await db.end({ timeout: 1 });
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
