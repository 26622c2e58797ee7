/**
 * POST /webhooks/{integration} (the SMS provider's inbound messages and receipts): Twilio's signature (the official
 * `twilio` package as the oracle), every refusal changing nothing, threads, STOP/START, duplicates under concurrency,
 * and GET /telephony/sms/threads/{id}/messages.
 */
import { describe, expect, test } from "bun:test";
import twilio from "twilio";
import { buildApp } from "../../src/app.ts";
import { optKeyword } from "../../src/telephony/keywords.ts";
import { purgeWebhookDeliveries } from "../../src/telephony/queries.ts";
import { twilioSignature } from "../../src/telephony/signature.ts";
import { harness } from "../support/harness.ts";
import { insertThread } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const token = "12345678901234567890123456789012";
// The service sits behind a proxy: the provider signs the public URL, the request arrives at localhost.
const publicBaseUrl = "https://lettings.example.test/api";
const config = { ...h.ctx.config, smsAuthToken: token, publicBaseUrl };
const app = buildApp({ ...h.ctx, config });
const publicUrl = `${publicBaseUrl}/webhooks/sms`;

let sids = 0;
const nextSid = () => `SM${String(++sids).padStart(32, "0")}`;

interface PostOptions {
  /** The app to post to (this file's, signed with `token`, unless given). */
  to?: typeof app;
  token?: string;
  /** The URL signed (the public one unless given). */
  signedUrl?: string;
  path?: string;
  signature?: string | null;
  contentType?: string;
  body?: string;
}

/** Posts form fields to the webhook through app.handle, signed by the twilio package unless told otherwise. */
async function post(fields: Record<string, string>, o: PostOptions = {}) {
  const headers: Record<string, string> = {
    "content-type": o.contentType ?? "application/x-www-form-urlencoded",
  };
  const signature =
    o.signature === undefined
      ? twilio.getExpectedTwilioSignature(o.token ?? token, o.signedUrl ?? publicUrl, fields)
      : o.signature;
  if (signature !== null) headers["x-twilio-signature"] = signature;
  const res = await (o.to ?? app).handle(
    new Request(`http://localhost${o.path ?? "/webhooks/sms"}`, {
      method: "POST",
      headers,
      body: o.body ?? new URLSearchParams(fields).toString(),
    }),
  );
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, text, headers: res.headers };
}

/** Everything a webhook may change, to show that a refusal changed nothing. */
async function state() {
  const [row] = await db<{ state: unknown }[]>`
    select json_build_object(
      'messages', (select coalesce(json_agg(m order by m.id), '[]') from sms_messages m),
      'threads', (select coalesce(json_agg(t order by t.id), '[]') from sms_threads t),
      'deliveries', (select coalesce(json_agg(d order by d.external_id), '[]') from webhook_deliveries d),
      'events', (select count(*) from events)) as state`;
  return row!.state;
}

/** A workspace with its own SMS number. */
async function workspaceWithNumber() {
  const ws = await h.workspace();
  const number = `+4411749${String(60000 + Math.floor(Math.random() * 39999)).padStart(5, "0")}`;
  await db`insert into sms_numbers (number, workspace_id, source) values (${number}, ${ws.id}, 'cli')`;
  return { ws, number };
}

const inbound = (to: string, from: string, body: string, sid = nextSid()) => ({
  MessageSid: sid,
  SmsSid: sid,
  AccountSid: "AC00000000000000000000000000000000",
  From: from,
  To: to,
  Body: body,
  NumMedia: "0",
  SmsStatus: "received",
});

/** A delivery receipt as the provider posts it: our number `from`, the recipient `to`. */
const receipt = (from: string, to: string, messageStatus: string, sid = nextSid()): Record<string, string> => ({
  AccountSid: "AC00000000000000000000000000000000",
  ApiVersion: "2010-04-01",
  From: from,
  MessageSid: sid,
  MessageStatus: messageStatus,
  SmsSid: sid,
  SmsStatus: messageStatus,
  To: to,
});

async function threadOf(workspaceId: string, address: string) {
  const [row] = await db`
    select id, contact_id, revision, preview, stopped, iso(last_message_at) as last_message_at,
           iso(last_inbound_at) as last_inbound_at
    from sms_threads where workspace_id = ${workspaceId} and address = ${address}`;
  return row;
}

async function eventTypes(workspaceId: string) {
  const rows = await db<{ type: string }[]>`
    select type from events where workspace_id = ${workspaceId} order by tx_id, id`;
  return rows.map((r) => r.type);
}

describe("the signature (the twilio package as the oracle)", () => {
  test("ours equals Twilio's for ordinary, repeated, empty and non-ASCII fields", () => {
    const cases: [string, string][][] = [
      [
        ["To", "+441174960000"],
        ["From", "+447700900201"],
        ["Body", "Hello — ça va? 🏠"],
      ],
      [
        ["b", "2"],
        ["B", "1"],
        ["a", ""],
        ["a", "z"],
        ["a", "m"],
      ],
      [],
    ];
    for (const fields of cases) {
      const form = new URLSearchParams(fields);
      const params: Record<string, string | string[]> = {};
      for (const name of new Set(form.keys())) {
        const all = form.getAll(name);
        params[name] = all.length > 1 ? all : all[0]!;
      }
      const ours = twilioSignature(token, publicUrl + "?x=1", form);
      expect(ours).toBe(twilio.getExpectedTwilioSignature(token, publicUrl + "?x=1", params));
      expect(twilio.validateRequest(token, ours, publicUrl + "?x=1", params)).toBe(true);
    }
  });

  test("valid: 200 with empty TwiML as text/xml", async () => {
    const { number } = await workspaceWithNumber();
    const res = await post(inbound(number, "+447700900301", "Hello"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    expect(res.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
  });

  test("the TwiML answer is never sniffed as another type nor kept by a cache (nosniff, no-store)", async () => {
    const { number } = await workspaceWithNumber();
    const res = await post(inbound(number, "+447700900315", "Hello"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("tampered field, tampered URL, missing header, another token, not a form: 401 WebhookRejected, nothing changes", async () => {
    const { number } = await workspaceWithNumber();
    const fields = inbound(number, "+447700900302", "Hello");
    const signed = twilio.getExpectedTwilioSignature(token, publicUrl, fields);
    const before = await state();
    const refusals = [
      // the signature of the original fields, with the body changed on the way
      await post({ ...fields, Body: "Hello, send money" }, { signature: signed }),
      // signed for the address the request arrived at, not the public one
      await post(fields, { signedUrl: "http://localhost/webhooks/sms" }),
      await post(fields, { signedUrl: `${publicUrl}?extra=1` }),
      await post(fields, { signature: null }),
      await post(fields, { token: "another-token-another-token-0000" }),
      await post(fields, { contentType: "application/json", body: JSON.stringify(fields) }),
    ];
    expect(refusals.map((r) => [r.status, r.body._tag, r.body.integration])).toEqual(
      Array(6).fill([401, "WebhookRejected", "sms"]),
    );
    expect(refusals.map((r) => r.body.reason)).toEqual([
      "the signature does not match",
      "the signature does not match",
      "the signature does not match",
      "no X-Twilio-Signature header",
      "the signature does not match",
      "the body is not application/x-www-form-urlencoded",
    ]);
    expect(await state()).toEqual(before);
    // The same post, signed right, is accepted: the refusals were the signature's.
    expect((await post(fields)).status).toBe(200);
  });

  test("without SMS_AUTH_TOKEN every post is refused", async () => {
    const unsigned = buildApp({ ...h.ctx, config: { ...config, smsAuthToken: undefined } });
    const res = await post(inbound("+441174960000", "+447700900303", "Hi"), { to: unsigned });
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe("SMS_AUTH_TOKEN is not set: no signature can be checked");
  });
});

describe("refusals", () => {
  test("each is logged as a warning with its tag and reason, and not the message", async () => {
    const lines: Record<string, unknown>[] = [];
    const quiet = () => {};
    const log = {
      debug: quiet,
      info: quiet,
      error: quiet,
      warn: (msg: string, f?: object) => lines.push({ msg, ...f }),
    };
    const logged = buildApp({ ...h.ctx, log, config });
    const fields = inbound("+441174969998", "+447700900314", "My PIN is 1234");
    await post(fields, { to: logged, signature: "forged" });
    await post(fields, { to: logged });
    expect(lines).toEqual([
      {
        msg: "webhook refused",
        requestId: expect.any(String),
        _tag: "WebhookRejected",
        integration: "sms",
        reason: "the signature does not match",
      },
      {
        msg: "webhook refused",
        requestId: expect.any(String),
        _tag: "WebhookUnroutable",
        integration: "sms",
        reason: "To is not a number of this service",
      },
    ]);
  });

  test("a request line names the workspace once the post was routed to one, a duplicate too", async () => {
    const lines: Record<string, unknown>[] = [];
    const quiet = () => {};
    const log = {
      debug: quiet,
      warn: quiet,
      error: quiet,
      info: (msg: string, f?: object) => lines.push({ msg, ...f }),
    };
    const logged = buildApp({ ...h.ctx, log, config });
    const { ws, number } = await workspaceWithNumber();
    const fields = inbound(number, "+447700900316", "Hello");
    expect((await post(fields, { to: logged })).status).toBe(200);
    expect((await post(fields, { to: logged })).status).toBe(409);
    expect((await post(inbound("+441174969997", "+447700900316", "Hi"), { to: logged })).status).toBe(400);
    const requests = lines
      .filter((l) => l.msg === "request")
      .map(({ status, error, workspaceId }) => ({ status, error, workspaceId }));
    expect(requests).toEqual([
      { status: 200, error: undefined, workspaceId: ws.id },
      { status: 409, error: "WebhookDuplicate", workspaceId: ws.id },
      { status: 400, error: "WebhookUnroutable", workspaceId: null },
    ]);
  });
  test("each is tagged and changes nothing", async () => {
    const { ws, number } = await workspaceWithNumber();
    const accepted = inbound(number, "+447700900304", "First");
    expect((await post(accepted)).status).toBe(200);
    const before = await state();
    const cases: [Awaited<ReturnType<typeof post>>, number, Record<string, string>][] = [
      [
        await post(inbound(number, "+447700900304", "x"), { path: "/webhooks/email" }),
        400,
        { _tag: "UnknownIntegration", integration: "email" },
      ],
      [
        await post(inbound("+441174969999", "+447700900304", "Hello?")),
        400,
        { _tag: "WebhookUnroutable", integration: "sms", reason: "To is not a number of this service" },
      ],
      [await post(accepted), 409, { _tag: "WebhookDuplicate", integration: "sms", externalId: accepted.MessageSid }],
      // the same MessageSid with another body is the same provider message
      [
        await post({ ...accepted, Body: "Changed" }),
        409,
        { _tag: "WebhookDuplicate", integration: "sms", externalId: accepted.MessageSid },
      ],
      [
        await post(receipt(number, "+447700900304", "delivered")),
        400,
        { _tag: "WebhookUnroutable", integration: "sms", reason: "MessageSid is not a message this service sent" },
      ],
      // documented, but no receipt moves a message to it
      [
        await post(receipt(number, "+447700900304", "receiving")),
        400,
        { _tag: "WebhookUnroutable", integration: "sms", reason: "MessageStatus is not one this service knows" },
      ],
    ];
    for (const [res, status, body] of cases) {
      expect([res.status, res.body]).toEqual([status, body]);
    }
    const big = await post(inbound(number, "+447700900304", "x".repeat(70_000)));
    expect([big.status, big.body._tag]).toEqual([413, "PayloadTooLarge"]);
    expect(await state()).toEqual(before);
    expect(await eventTypes(ws.id)).toEqual(["sms.received"]);
  });

  test("unknown integrations share one budget bucket; the sms bucket is per address", async () => {
    await post({}, { path: "/webhooks/made-up-1" });
    await post({}, { path: "/webhooks/made-up-2" });
    const rows = await db<{ scope: string }[]>`select scope from address_buckets order by scope`;
    expect(rows.map((r) => r.scope)).toEqual(["webhooks/sms", "webhooks/unknown"]);
  });

  test("a spent budget is 429 RateLimited and changes nothing", async () => {
    const { number } = await workspaceWithNumber();
    const tight = buildApp({ ...h.ctx, config: { ...config, webhookBudgetPerMinute: 1 } });
    await db`delete from address_buckets where scope = 'webhooks/sms'`;
    await db`insert into address_buckets values ('webhooks/sms', 'local', 0, now())`;
    const before = await state();
    const res = await post(inbound(number, "+447700900305", "Flood"), { to: tight });
    expect([res.status, res.body._tag]).toEqual([429, "RateLimited"]);
    expect(await state()).toEqual(before);
    await db`delete from address_buckets where scope = 'webhooks/sms'`;
  });
});

describe("the provider's fields, each by its documented shape", () => {
  test("a captured post re-cut to move the next fields into MessageSid still verifies, and is refused", async () => {
    const { ws, number } = await workspaceWithNumber();
    const sid = nextSid();
    // The post as Twilio sends it from a UK mobile (no city, state or zip), and its signature as captured.
    const genuine: Record<string, string> = {
      ToCountry: "GB",
      ToState: "",
      SmsMessageSid: sid,
      NumMedia: "0",
      ToCity: "",
      FromZip: "",
      SmsSid: sid,
      FromState: "",
      SmsStatus: "received",
      FromCity: "",
      Body: "Can I pay the rent on Monday?",
      FromCountry: "GB",
      To: number,
      ToZip: "",
      NumSegments: "1",
      ReferralNumMedia: "0",
      MessageSid: sid,
      AccountSid: "AC00000000000000000000000000000000",
      From: "+447700900316",
      ApiVersion: "2010-04-01",
    };
    const captured = twilio.getExpectedTwilioSignature(token, publicUrl, genuine);
    expect((await post(genuine, { signature: captured })).status).toBe(200);
    const before = await state();
    // Names and values are signed run together: `MessageSid` + `SM…` + `NumMedia` + `0` is the same text whether
    // NumMedia is a field or the end of MessageSid. Each re-cut would be a new MessageSid, past the duplicate check.
    const { NumMedia, NumSegments, ...rest } = genuine;
    const recuts = [
      { ...rest, NumSegments: NumSegments!, MessageSid: `${sid}NumMedia${NumMedia}` },
      { ...rest, MessageSid: `${sid}NumMedia${NumMedia}NumSegments${NumSegments}` },
    ];
    for (const recut of recuts) {
      expect(twilio.validateRequest(token, captured, publicUrl, recut)).toBe(true);
      const res = await post(recut, { signature: captured });
      expect([res.status, res.body]).toEqual([
        401,
        {
          _tag: "WebhookRejected",
          integration: "sms",
          reason: "MessageSid is not SM or MM and 32 lower-case hex digits",
        },
      ]);
    }
    expect(await state()).toEqual(before);
    expect(await eventTypes(ws.id)).toEqual(["sms.received"]);
  });

  test("a field read out of shape, absent or repeated: 401 WebhookRejected before the duplicate check", async () => {
    const { number } = await workspaceWithNumber();
    const from = "+447700900317";
    const accepted = inbound(number, from, "First");
    expect((await post(accepted)).status).toBe(200);
    const before = await state();
    const ok = (): Record<string, string> => inbound(number, from, "Hello");
    const without = (fields: Record<string, string>, name: string) => {
      const { [name]: _, ...rest } = fields;
      return rest;
    };
    const hex32 = "0123456789abcdef".repeat(2);
    const cases: [Record<string, string>, string][] = [
      [{ ...ok(), MessageSid: `SM${hex32.toUpperCase()}` }, "MessageSid is not SM or MM and 32 lower-case hex digits"],
      [{ ...ok(), MessageSid: `SM${hex32.slice(1)}` }, "MessageSid is not SM or MM and 32 lower-case hex digits"],
      [{ ...ok(), MessageSid: `MG${hex32}` }, "MessageSid is not SM or MM and 32 lower-case hex digits"],
      [without(ok(), "MessageSid"), "MessageSid is missing"],
      [{ ...ok(), SmsSid: nextSid() }, "SmsSid is not MessageSid"],
      [{ ...ok(), SmsMessageSid: nextSid() }, "SmsMessageSid is not MessageSid"],
      [without(ok(), "AccountSid"), "AccountSid is missing"],
      [{ ...ok(), AccountSid: "AC0" }, "AccountSid is not AC and 32 lower-case hex digits"],
      [{ ...ok(), From: "07700900317" }, "From is not an E.164 number"],
      [without(ok(), "From"), "From is missing"],
      [{ ...ok(), To: "+44 117 496 0000" }, "To is not an E.164 number"],
      [{ ...ok(), NumMedia: "" }, "NumMedia is not a count in digits"],
      [without(ok(), "NumMedia"), "NumMedia is missing"],
      [{ ...ok(), SmsStatus: "bogus" }, "SmsStatus is not a MessageStatus the provider documents"],
      [receipt(number, from, "teleported"), "MessageStatus is not a MessageStatus the provider documents"],
      [
        { ...receipt(number, from, "failed"), ErrorCode: "30003x" },
        "ErrorCode is not an error code in digits (or empty)",
      ],
      // the message already stored, re-sent with a field out of shape: refused as such, not as a duplicate
      [{ ...accepted, From: "Landlord" }, "From is not an E.164 number"],
    ];
    for (const [fields, reason] of cases) {
      const res = await post(fields);
      expect([reason, res.status, res.body]).toEqual([
        reason,
        401,
        { _tag: "WebhookRejected", integration: "sms", reason },
      ]);
    }
    // A field sent twice (the provider sends each once), signed as Twilio signs repeated values.
    const once = ok();
    const twice: [string, string][] = [...Object.entries(once), ["From", "+447700900318"]];
    const params: Record<string, string | string[]> = { ...once, From: [from, "+447700900318"] };
    const repeated = await post(
      {},
      {
        body: new URLSearchParams(twice).toString(),
        signature: twilio.getExpectedTwilioSignature(token, publicUrl, params),
      },
    );
    expect([repeated.status, repeated.body.reason]).toEqual([401, "From is repeated"]);
    expect(await state()).toEqual(before);
  });

  test("an empty ErrorCode is no code: the receipt is read", async () => {
    const { number } = await workspaceWithNumber();
    const res = await post({ ...receipt(number, "+447700900319", "delivered"), ErrorCode: "" });
    expect([res.status, res.body.reason]).toEqual([400, "MessageSid is not a message this service sent"]);
  });

  test("a NUL in any field or field name: 400 RequestInvalid naming it, as on every route; nothing changes", async () => {
    const { number } = await workspaceWithNumber();
    const from = "+447700900320";
    const before = await state();
    const nul = "Text must not contain the NUL character (U+0000)";
    const cases: [Record<string, string>, { path: string; message: string }][] = [
      [inbound(number, from, "Hello\u0000there"), { path: "/body/Body", message: nul }],
      [inbound(number, "+4477009\u000000320", "Hello"), { path: "/body/From", message: nul }],
      [
        { ...inbound(number, from, "Hello"), FromCity: "\u0000" },
        { path: "/body/FromCity", message: nul },
      ],
      [
        { ...inbound(number, from, "Hello"), "Extra\u0000": "x" },
        { path: "/body/Extra\u0000", message: `Field name: ${nul}` },
      ],
    ];
    for (const [fields, issue] of cases) {
      const res = await post(fields);
      expect([res.status, res.body]).toEqual([
        400,
        { _tag: "RequestInvalid", message: "The body does not match its schema.", issues: [issue] },
      ]);
    }
    expect(await state()).toEqual(before);
  });
});

describe("inbound messages", () => {
  test("a new sender opens a thread linked to the one contact whose mobile matches; the thread moves", async () => {
    const { ws, number } = await workspaceWithNumber();
    const contact = await h.rows(ws).contact({ name: "Chloe Martin", mobile: "07700 900 306" });
    const res = await post(inbound(number, "+447700900306", "Is someone coming about the fan?"));
    expect(res.status).toBe(200);
    const thread = await threadOf(ws.id, "+447700900306");
    expect(thread).toMatchObject({
      contactId: contact,
      revision: 2,
      preview: "Is someone coming about the fan?",
      stopped: false,
    });
    expect(thread!.lastInboundAt).toBe(thread!.lastMessageAt);
    const list = await h.request("GET", `/telephony/sms/threads/${thread!.id}/messages`, { key: ws.key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: expect.any(String),
        threadId: thread!.id,
        direction: "inbound",
        body: "Is someone coming about the fan?",
        status: "received",
        errorCode: null,
        createdAt: thread!.lastMessageAt,
        sentAt: null,
        deliveredAt: null,
      },
    ]);
    const [event] = await db`select type, subject_kind, subject_id, data, actor_kind, actor_id from events
      where workspace_id = ${ws.id}`;
    expect(event).toEqual({
      type: "sms.received",
      subjectKind: "sms",
      subjectId: list.body[0].id,
      data: list.body[0],
      actorKind: "provider",
      actorId: "sms",
    });
  });

  test("two contacts with that mobile: the thread is linked to neither; a second message uses the same thread", async () => {
    const { ws, number } = await workspaceWithNumber();
    await h.rows(ws).contacts([
      { name: "A", mobile: "+44 7700 900307" },
      { name: "B", mobile: "07700900307" },
    ]);
    expect((await post(inbound(number, "+447700900307", "One"))).status).toBe(200);
    expect((await post(inbound(number, "+447700900307", "Two"))).status).toBe(200);
    const threads = await db`select id, contact_id, preview, revision from sms_threads where workspace_id = ${ws.id}`;
    expect(threads.map((t) => [t.contactId, t.preview, t.revision])).toEqual([[null, "Two", 3]]);
  });

  test("an existing (imported) thread gets the message; other workspaces see nothing", async () => {
    const { ws, number } = await workspaceWithNumber();
    const other = await h.workspace();
    const thread = await insertThread(db, ws.id, {
      localNumber: number,
      address: "+447700900308",
      lastMessageAt: "2026-01-01T10:00:00Z",
      preview: "old",
    });
    expect((await post(inbound(number, "+447700900308", "  Thanks, Tuesday works  "))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900308")).toMatchObject({
      id: thread,
      revision: 2,
      preview: "  Thanks, Tuesday works  ",
    });
    const res = await h.request("GET", `/telephony/sms/threads/${thread}/messages`, { key: other.key });
    expect([res.status, res.body]).toEqual([404, { _tag: "SmsThreadNotFound", threadId: thread }]);
  });

  test("the message list pages newest first with Link and cursor", async () => {
    const { ws, number } = await workspaceWithNumber();
    for (const body of ["one", "two", "three"]) {
      expect((await post(inbound(number, "+447700900309", body))).status).toBe(200);
    }
    const { id } = (await threadOf(ws.id, "+447700900309"))!;
    const seen: string[] = [];
    let path: string | undefined = `/telephony/sms/threads/${id}/messages?limit=2`;
    while (path) {
      const res: { status: number; body: { body: string }[]; headers: Headers } = await h.request("GET", path, {
        key: ws.key,
      });
      expect(res.status).toBe(200);
      seen.push(...res.body.map((m) => m.body));
      const link: string | null = res.headers.get("link");
      const next = link ? new URL(link.slice(1, link.indexOf(">"))) : undefined;
      path = next ? next.pathname + next.search : undefined;
    }
    expect(seen).toEqual(["three", "two", "one"]);
    const bad = await h.request("GET", `/telephony/sms/threads/${id}/messages?cursor=bm9wZQ`, { key: ws.key });
    expect([bad.status, bad.body._tag]).toEqual([400, "RequestInvalid"]);
  });

  test("20 clients posting the same message at once: one stored, 19 × 409 WebhookDuplicate", async () => {
    const { ws, number } = await workspaceWithNumber();
    const fields = inbound(number, "+447700900310", "Key for 2B doesn't work");
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(fields)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(409)]);
    const messages = await db`select id from sms_messages where workspace_id = ${ws.id}`;
    const threads = await db`select id, revision from sms_threads where workspace_id = ${ws.id}`;
    expect([messages.length, threads.length, threads[0]!.revision]).toEqual([1, 1, 2]);
    expect(await eventTypes(ws.id)).toEqual(["sms.received"]);
  });
});

describe("opt-out and opt-in keywords", () => {
  test("first word, case, spaces, and the punctuation, symbols and format characters around it ignored", () => {
    const cases: [string, string | undefined][] = [
      ["STOP", "stop"],
      ["  stop  ", "stop"],
      ["Stop.", "stop"],
      ["stopall", "stop"],
      ["Unsubscribe me please", "stop"],
      ["cancel", "stop"],
      ["END", "stop"],
      ["quit!", "stop"],
      ["start", "start"],
      ["Unstop", "start"],
      ["yes", "start"],
      ["optout", "stop"],
      ["Revoke.", "stop"],
      // dressed in quotes, emoji, punctuation, compatibility forms or invisible format characters
      ["“Stop”", "stop"],
      ["STOP🛑", "stop"],
      ["STOP 🛑️", "stop"],
      ["🛑 stop", "stop"],
      ["Stop-", "stop"],
      ["stop。", "stop"],
      ["ＳＴＯＰ", "stop"],
      ["\u200BSTOP", "stop"],
      ["S\u200Dtop\uFEFF", "stop"],
      ["\u3000stop\u00A0now", "stop"],
      ["“Start”", "start"],
      ["START🛑", "start"],
      ["Start-", "start"],
      ["start。", "start"],
      ["ＳＴＡＲＴ", "start"],
      ["\u200BSTART", "start"],
      ["End-of-tenancy clean booked?", undefined],
      ["stop's", undefined],
      ["HELP", undefined],
      ["stopping by later", undefined],
      ["please stop", undefined],
      ["", undefined],
    ];
    expect(cases.map(([body]) => [body, optKeyword(body)])).toEqual(cases);
  });

  test("STOP stops the thread and fails its queued messages (errorCode stopped); START clears it", async () => {
    const { ws, number } = await workspaceWithNumber();
    const thread = await insertThread(db, ws.id, { localNumber: number, address: "+447700900311" });
    const queued = await h.request("POST", `/telephony/sms/threads/${thread}/messages`, {
      key: ws.key,
      body: { body: "Your inspection is on Friday." },
    });
    expect(queued.status).toBe(202);
    expect((await post(inbound(number, "+447700900311", " stop "))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900311")).toMatchObject({ stopped: true, revision: 4, preview: " stop " });
    const list = await h.request("GET", `/telephony/sms/threads/${thread}/messages`, { key: ws.key });
    expect(list.body.map((m: any) => [m.direction, m.body, m.status, m.errorCode])).toEqual([
      ["inbound", " stop ", "received", null],
      ["outbound", "Your inspection is on Friday.", "failed", "stopped"],
    ]);
    expect(await eventTypes(ws.id)).toEqual(["sms.queued", "sms.received", "sms.status_changed", "sms_thread.stopped"]);
    const refused = await h.request("POST", `/telephony/sms/threads/${thread}/messages`, {
      key: ws.key,
      body: { body: "Are you sure?" },
    });
    expect([refused.status, refused.body]).toEqual([409, { _tag: "SmsStopped", threadId: thread }]);
    // A second STOP is stored like any message and changes nothing more.
    expect((await post(inbound(number, "+447700900311", "STOP"))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900311")).toMatchObject({ stopped: true, revision: 5 });
    expect((await post(inbound(number, "+447700900311", "Start"))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900311")).toMatchObject({ stopped: false, revision: 7 });
    expect((await eventTypes(ws.id)).slice(-2)).toEqual(["sms.received", "sms_thread.started"]);
    const again = await h.request("POST", `/telephony/sms/threads/${thread}/messages`, {
      key: ws.key,
      body: { body: "Welcome back." },
    });
    expect(again.status).toBe(202);
  });

  test("a STOP or START dressed in quotes, emoji, full-width forms or zero-width spaces is honoured", async () => {
    const { ws, number } = await workspaceWithNumber();
    expect((await post(inbound(number, "+447700900321", "\u200B“ＳＴＯＰ”🛑"))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900321")).toMatchObject({ stopped: true });
    expect((await post(inbound(number, "+447700900321", "Start。"))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900321")).toMatchObject({ stopped: false });
    expect(await eventTypes(ws.id)).toEqual([
      "sms.received",
      "sms_thread.stopped",
      "sms.received",
      "sms_thread.started",
    ]);
  });

  test("HELP is stored like any message", async () => {
    const { ws, number } = await workspaceWithNumber();
    expect((await post(inbound(number, "+447700900312", "HELP"))).status).toBe(200);
    expect(await threadOf(ws.id, "+447700900312")).toMatchObject({ stopped: false, preview: "HELP" });
  });
});

describe("the deliveries kept for duplicates", () => {
  test("are forgotten after 30 days by the daily purge", async () => {
    const { number } = await workspaceWithNumber();
    const fields = inbound(number, "+447700900313", "Old news");
    expect((await post(fields)).status).toBe(200);
    await db`update webhook_deliveries set received_at = now() - interval '31 days' where external_id = ${fields.MessageSid}`;
    expect(await purgeWebhookDeliveries(db, 30)).toBe(1);
    expect(await db`select 1 from webhook_deliveries where external_id = ${fields.MessageSid}`).toHaveLength(0);
  });
});
