/**
 * A DATABASE_URL naming a Unix-domain socket whose file is not there (the server stopped, its socket directory
 * cleaned) fails to connect with ENOENT: that is the database out of reach, 503 IntegrationUnavailable like a refused
 * TCP connection, never a 500. A missing file anywhere else is not.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../../src/app.ts";
import { connect, isConnectionError } from "../../src/core/db.ts";
import { harness } from "../support/harness.ts";

const h = await harness();
const ws = await h.workspace();
const dir = mkdtempSync(join(tmpdir(), "lettings-no-socket-"));
// A socket directory with no server in it: connecting finds no `.s.PGSQL.5432`.
const gone = connect(`postgres://postgres@localhost/postgres?host=${dir}`, { max: 1 });
afterAll(async () => {
  await gone.end({ timeout: 1 });
  rmSync(dir, { recursive: true, force: true });
});

describe("a database socket that is not there", () => {
  test("a query fails with ENOENT, a connection error; a missing file is not one", async () => {
    const error = await gone`select 1`.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe("ENOENT");
    expect(isConnectionError(error)).toBe(true);
    let missingFile: unknown;
    try {
      readFileSync(join(dir, "missing.sql"));
    } catch (e) {
      missingFile = e;
    }
    expect((missingFile as { code?: string }).code).toBe("ENOENT");
    expect(isConnectionError(missingFile)).toBe(false);
  });

  test("a request answers 503 IntegrationUnavailable", async () => {
    const app = buildApp({ ...h.ctx, db: gone });
    const answer = await app.handle(new Request("http://localhost/events", { headers: { "x-api-key": ws.key } }));
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { _tag: string })._tag).toBe("IntegrationUnavailable");
  });
});
