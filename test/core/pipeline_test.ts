/** The request pipeline every operation shares: validation, body limits, media types, faults (src/core/api_description.ts). */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { harness } from "../support/harness.ts";
import { buildApp } from "../../src/app.ts";
import { operation } from "../../src/core/operation.ts";
import { Strict, Id } from "../../src/core/schema.ts";
import { connect } from "../../src/core/db.ts";

const h = await harness();
const ws = await h.workspace();

const echo = operation({
  id: "test.echo",
  group: "tasks",
  method: "POST",
  path: "/test/echo/:id",
  summary: "Echoes its input.",
  description: "Test only.",
  params: Strict({ id: Id }),
  query: Strict({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    flag: Type.Optional(Type.Boolean()),
  }),
  body: Strict({ name: Type.String({ minLength: 1 }), nested: Type.Optional(Strict({ n: Type.Integer() })) }),
  response: Strict({
    id: Type.String(),
    name: Type.String(),
    limit: Type.Union([Type.Integer(), Type.Null()]),
    flag: Type.Union([Type.Boolean(), Type.Null()]),
  }),
  run: async ({ params, body, query }) => ({
    id: params.id,
    name: body.name,
    limit: query.limit ?? null,
    flag: query.flag ?? null,
  }),
});
const boom = operation({
  id: "test.boom",
  group: "tasks",
  method: "GET",
  path: "/test/boom",
  summary: "Fails.",
  description: "Test only.",
  response: Type.Object({}),
  run: async () => {
    throw new Error("secret internals");
  },
});
const wrongShape = operation({
  id: "test.wrongShape",
  group: "tasks",
  method: "GET",
  path: "/test/wrong-shape",
  summary: "Answers off-schema.",
  description: "Test only.",
  response: Strict({ a: Type.String() }),
  run: async () => ({ a: "x", extra: 1 }) as any,
});
const noBody = operation({
  id: "test.noBody",
  group: "tasks",
  method: "POST",
  path: "/test/no-body",
  summary: "Takes no body.",
  description: "Test only.",
  response: Strict({ ok: Type.Boolean() }),
  run: async () => ({ ok: true }),
});
const app = buildApp(h.ctx, { operations: [echo, boom, wrongShape, noBody] });

async function call(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await app.handle(
    new Request(`http://localhost${path}`, {
      method,
      body: init.body,
      headers: { "x-api-key": ws.key, ...(init.headers ?? {}) },
    }),
  );
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}
const jsonHeaders = { "content-type": "application/json" };

describe("validation", () => {
  test("a valid call passes, query values converted from text", async () => {
    const res = await call("POST", "/test/echo/A1?limit=3&flag=true", {
      body: JSON.stringify({ name: "x" }),
      headers: jsonHeaders,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: "A1", name: "x", limit: 3, flag: true });
  });

  test("malformed JSON is RequestInvalid", async () => {
    const res = await call("POST", "/test/echo/A1", { body: "{nope", headers: jsonHeaders });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues[0].path).toBe("/body");
  });

  test("unknown body fields are refused, not stripped, naming the path", async () => {
    const res = await call("POST", "/test/echo/A1", {
      body: JSON.stringify({ name: "x", revision: 3, nested: { n: 1, workspaceId: "w" } }),
      headers: jsonHeaders,
    });
    expect(res.status).toBe(400);
    const paths = res.body.issues.map((i: any) => i.path);
    expect(paths).toContain("/body/revision");
    expect(paths).toContain("/body/nested/workspaceId");
  });

  test("a value breaking its schema names its path", async () => {
    const res = await call("POST", "/test/echo/A1", { body: JSON.stringify({ name: "" }), headers: jsonHeaders });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: any) => i.path)).toContain("/body/name");
  });

  test("bad path and query values are RequestInvalid", async () => {
    const path = await call("POST", "/test/echo/bad%20id", {
      body: JSON.stringify({ name: "x" }),
      headers: jsonHeaders,
    });
    expect(path.status).toBe(400);
    expect(path.body.issues[0].path).toBe("/params/id");
    const query = await call("POST", "/test/echo/A1?limit=99", {
      body: JSON.stringify({ name: "x" }),
      headers: jsonHeaders,
    });
    expect(query.body.issues[0].path).toBe("/query/limit");
    const unknown = await call("POST", "/test/echo/A1?bogus=1", {
      body: JSON.stringify({ name: "x" }),
      headers: jsonHeaders,
    });
    expect(unknown.status).toBe(400);
  });

  test("a missing body on an operation that takes one is RequestInvalid", async () => {
    const res = await call("POST", "/test/echo/A1");
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
  });

  test("an operation without a body accepts none or {}, and refuses fields", async () => {
    expect((await call("POST", "/test/no-body")).status).toBe(200);
    expect((await call("POST", "/test/no-body", { body: "{}", headers: jsonHeaders })).status).toBe(200);
    const res = await call("POST", "/test/no-body", { body: JSON.stringify({ x: 1 }), headers: jsonHeaders });
    expect(res.status).toBe(400);
  });

  test("validation comes after authentication", async () => {
    const res = await app.handle(
      new Request("http://localhost/test/echo/A1", { method: "POST", body: "{nope", headers: jsonHeaders }),
    );
    expect(res.status).toBe(401);
  });
});

describe("bodies", () => {
  test("a body over 64 KiB is PayloadTooLarge", async () => {
    const res = await call("POST", "/test/echo/A1", {
      body: JSON.stringify({ name: "x".repeat(70 * 1024) }),
      headers: jsonHeaders,
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ _tag: "PayloadTooLarge", limit: 65536 });
  });

  test("a body that is not JSON is UnsupportedMediaType", async () => {
    const res = await call("POST", "/test/echo/A1", {
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ _tag: "UnsupportedMediaType", contentType: "application/x-www-form-urlencoded" });
  });

  test("application/json with a charset is JSON", async () => {
    const res = await call("POST", "/test/echo/A1", {
      body: JSON.stringify({ name: "x" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(200);
  });
});

describe("faults", () => {
  test("an unexpected fault is InternalError with the request id and no stack", async () => {
    const res = await call("GET", "/test/boom", { headers: { "x-request-id": "req-42" } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ _tag: "InternalError", requestId: "req-42" });
    expect(JSON.stringify(res.body)).not.toContain("secret");
  });

  test("a response that breaks its declared schema is a 500, never echoed", async () => {
    const res = await call("GET", "/test/wrong-shape");
    expect(res.status).toBe(500);
    expect(res.body._tag).toBe("InternalError");
  });

  test("an unprintable or overlong X-Request-Id is replaced by a ULID", async () => {
    const long = await call("GET", "/test/boom", { headers: { "x-request-id": "x".repeat(129) } });
    expect(long.headers.get("x-request-id")).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  test("a database that cannot be reached is IntegrationUnavailable, and health says 503", async () => {
    const dead = connect("postgres://postgres:postgres@127.0.0.1:1/none", { max: 1 });
    const down = buildApp({ ...h.ctx, db: dead }, { operations: [noBody] });
    const res = await down.handle(
      new Request("http://localhost/test/no-body", { method: "POST", headers: { "x-api-key": ws.key } }),
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body._tag).toBe("IntegrationUnavailable");
    expect(body.integration).toBe("database");
    expect(body.requestId).toBe(res.headers.get("x-request-id"));
    const health = await down.handle(new Request("http://localhost/health"));
    expect(health.status).toBe(503);
    await dead.end();
  });
});
