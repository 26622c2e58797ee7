/**
 * Request log lines (REST and MCP) say whose workspace, which record (the path's ids) and which error (`_tag`),
 * so one refusal can be told from another; and no log line at info level carries personal data (SMS numbers
 * and text, email addresses).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createMailer } from "../../src/email/transport.ts";
import { outboxProvider } from "../../src/telephony/provider.ts";
import { harness } from "../support/harness.ts";
import { recordingLog } from "../support/recording_log.ts";
import { connectHttp } from "../mcp/support.ts";
import { insertThread } from "../telephony/fixtures.ts";
import { addContact } from "../maintenance_pro/fixtures.ts";
import { outboxContext, sendInvitation } from "../maintenance_pro/portal_fixtures.ts";

const h = await harness();

/** A logger keeping every line, as createLogger would write it. */
const capture = recordingLog;

describe("request log lines", () => {
  test("a REST request's line has the workspace, the path's record ids and, for an error, its tag", async () => {
    const ws = await h.workspace();
    const { log, lines } = capture();
    const app = buildApp({ ...h.ctx, log });
    const send = (method: string, path: string, key: string | null = ws.key) =>
      app.handle(new Request(`http://localhost${path}`, { method, headers: key ? { "x-api-key": key } : {} }));
    await send("GET", "/handovers/tenancies/ten-missing");
    await send("POST", "/tasks/task-missing/cancel");
    await send("GET", "/compliance/block-profiles");
    await send("GET", "/handovers/tenancies/ten-any", null);
    const requests = lines.filter((l) => l.msg === "request").map(({ requestId, durationMs, time, ...rest }) => rest);
    expect(requests).toEqual([
      {
        level: "info",
        msg: "request",
        method: "GET",
        keyId: ws.keyId,
        workspaceId: ws.id,
        route: "handovers.forTenancy",
        params: { tenancyId: "ten-missing" },
        status: 404,
        error: "HandoverNotFound",
      },
      {
        level: "info",
        msg: "request",
        method: "POST",
        keyId: ws.keyId,
        workspaceId: ws.id,
        route: "tasks.cancel",
        params: { id: "task-missing" },
        status: 404,
        error: "TaskNotFound",
      },
      {
        level: "info",
        msg: "request",
        method: "GET",
        keyId: ws.keyId,
        workspaceId: ws.id,
        route: "compliance.blockProfiles",
        status: 200,
      },
      {
        level: "info",
        msg: "request",
        method: "GET",
        keyId: null,
        workspaceId: null,
        route: "handovers.forTenancy",
        params: { tenancyId: "ten-any" },
        status: 401,
        error: "Unauthenticated",
      },
    ]);
  });

  test("an MCP tool call's line has the same fields; an HTTP-level refusal of /mcp has its tag", async () => {
    const ws = await h.workspace();
    const { log, lines } = capture();
    const app = buildApp({ ...h.ctx, log });
    const session = await connectHttp(app, { key: ws.key });
    try {
      await session.client.callTool({ name: "handovers_forTenancy", arguments: { tenancyId: "ten-missing" } });
    } finally {
      await session.close();
    }
    const call = lines.find((l) => l.msg === "request" && l.transport === "mcp");
    expect(call).toMatchObject({
      keyId: ws.keyId,
      workspaceId: ws.id,
      route: "handovers.forTenancy",
      params: { tenancyId: "ten-missing" },
      status: 404,
      error: "HandoverNotFound",
    });
    const posts = lines.filter((l) => l.msg === "request" && l.route === "mcp" && l.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.map((l) => [l.keyId, l.workspaceId])).toEqual(posts.map(() => [ws.keyId, ws.id]));
    // The client's GET (a stream) and DELETE (end of session) are refused before any key check: their tag says so.
    for (const other of lines.filter((l) => l.msg === "request" && l.route === "mcp" && l.method !== "POST")) {
      expect(other).toMatchObject({ status: 405, error: "MethodNotAllowed", workspaceId: null });
    }

    await app.handle(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "x-api-key": "lk_nope", "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(lines.at(-1)).toMatchObject({
      msg: "request",
      route: "mcp",
      keyId: null,
      workspaceId: null,
      status: 401,
      error: "ApiKeyRejected",
    });
  });
});

describe("lines of answers no operation gave", () => {
  test("an unknown path (404) has its line: the request id it answered with, the method and the path", async () => {
    const { log, lines } = capture();
    const app = buildApp({ ...h.ctx, log });
    const res = await app.handle(
      new Request("http://localhost/no/such/route?x=1", { method: "DELETE", headers: { "x-request-id": "req-404-a" } }),
    );
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBe("req-404-a");
    expect(lines.filter((l) => l.msg === "request")).toEqual([
      {
        level: "info",
        msg: "request",
        requestId: "req-404-a",
        method: "DELETE",
        keyId: null,
        workspaceId: null,
        route: null,
        status: 404,
        error: "RouteNotFound",
        path: "/no/such/route",
      },
    ]);
  });

  test("a portal page's refusal has its error, and a public route's line the workspace once the route found it", async () => {
    const { log, lines } = capture();
    const ctx = { ...outboxContext(h), log };
    try {
      const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });
      const ws = await h.workspace();
      const landlord = await addContact(h.database.db, ws, { name: "Ada" });
      const { token } = await sendInvitation(h, ctx, ws, landlord.id);
      const html = { accept: "text/html" };
      const form = { ...html, "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" };
      const page = (t: string) =>
        app.handle(new Request(`http://localhost/portal/invitations/${t}`, { headers: html }));
      const accept = () =>
        app.handle(
          new Request(`http://localhost/portal/invitations/${token}/accept`, {
            method: "POST",
            headers: form,
            body: "",
          }),
        );
      const answers = [await accept(), await accept(), await page(token), await page("A".repeat(43))];
      expect(answers.map((r) => r.status)).toEqual([200, 409, 200, 404]);
      const requests = lines
        .filter((l) => l.msg === "request")
        .map(({ route, status, error, workspaceId, keyId }) => ({ route, status, error, workspaceId, keyId }));
      expect(requests).toEqual([
        { route: "portal.accept", status: 200, error: undefined, workspaceId: ws.id, keyId: null },
        { route: "portal.accept", status: 409, error: "InvitationAccepted", workspaceId: ws.id, keyId: null },
        { route: "portal.invitation", status: 200, error: undefined, workspaceId: ws.id, keyId: null },
        { route: "portal.invitation", status: 404, error: "InvitationNotFound", workspaceId: null, keyId: null },
      ]);
    } finally {
      rmSync(ctx.config.dataDir, { recursive: true, force: true });
    }
  });
});

describe("personal data stays out of info", () => {
  test("the SMS outbox logs numbers and text only at debug", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(h.database.db, ws.id, { address: "+447700900555" });
    const body = "Your keys are ready, Mrs Example.";
    const queued = await h.request("POST", `/telephony/sms/threads/${thread}/messages`, {
      key: ws.key,
      body: { body },
    });
    expect(queued.status).toBe(202);
    const { log, lines } = capture();
    const sms = { workspaceId: ws.id, messageId: queued.body.id, from: "+447700900001", to: "+447700900555", body };
    await h.database.db.begin((tx) => outboxProvider(log).send(tx, sms));
    const info = lines.filter((l) => l.level !== "debug");
    expect(info).toEqual([
      { level: "info", msg: "sms outbox", workspaceId: ws.id, messageId: sms.messageId, characters: sms.body.length },
    ]);
    expect(JSON.stringify(lines.filter((l) => l.level === "debug"))).toContain(sms.to);
  });

  test("the email outbox logs the address only at debug", async () => {
    const { log, lines } = capture();
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), "lettings-log-")) });
    const mailer = createMailer(config, log);
    await mailer.send({
      reference: "invitation-log",
      messageId: "<invitation-log@lettings.test>",
      to: "jane.landlord@example.com",
      subject: "Acme invites you to the landlord portal",
      text: "Hello",
      html: "<p>Hello</p>",
    });
    const info = JSON.stringify(lines.filter((l) => l.level !== "debug"));
    expect(info).toContain("outbox");
    expect(info).not.toContain("jane.landlord");
    expect(JSON.stringify(lines.filter((l) => l.level === "debug"))).toContain("jane.landlord@example.com");
  });
});
