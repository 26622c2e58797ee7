/** The webhook commands of the operator CLI, run as a subprocess; the SSRF rules at creation. */
import { describe, expect, test } from "bun:test";
import { addressRefusal } from "../../src/webhooks/address.ts";
import { createSubscription } from "../../src/webhooks/subscriptions.ts";
import { WebhookUrlRefused } from "../../src/webhooks/errors.ts";
import { harness } from "../support/harness.ts";
import { runCli } from "../support/service.ts";

const h = await harness();
const db = h.database.db;

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { databaseUrl: h.database.url, env, drop: ["WEBHOOKS_ALLOW_PRIVATE"] });

const allow = { WEBHOOKS_ALLOW_PRIVATE: "true" };

describe("webhook commands", () => {
  test("create prints the subscription and its secret once; list never shows a secret", async () => {
    const ws = await h.workspace();
    const made = await cli(
      [
        "webhook",
        "create",
        "--workspace",
        ws.slug,
        "--url",
        "http://127.0.0.1:9/hooks",
        "--events",
        "company.created,task.cancelled",
        "--description",
        " CRM sync ",
      ],
      allow,
    );
    expect(made.code).toBe(0);
    expect(made.out).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      workspaceId: ws.id,
      url: "http://127.0.0.1:9/hooks",
      events: ["company.created", "task.cancelled"],
      description: "CRM sync",
      status: "active",
      disabledReason: null,
      failingSince: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = await cli(["webhook", "list", "--workspace", ws.slug]);
    const { secret: _, ...shown } = made.out;
    expect(listed.out).toEqual({ subscriptions: [shown] });
    expect(listed.stdout).not.toContain(made.out.secret);
  });

  test("disable, enable, rotate-secret and deliveries; an unknown id is WebhookNotFound (exit 2)", async () => {
    const ws = await h.workspace();
    const made = await cli(
      ["webhook", "create", "--workspace", ws.slug, "--url", "http://127.0.0.1:9/", "--events", "*"],
      allow,
    );
    const id = made.out.id;
    expect((await cli(["webhook", "disable", "--id", id])).out).toMatchObject({
      status: "disabled",
      disabledReason: "operator",
    });
    expect((await cli(["webhook", "enable", "--id", id])).out).toMatchObject({
      status: "active",
      disabledReason: null,
    });
    const rotated = await cli(["webhook", "rotate-secret", "--id", id]);
    expect(rotated.out).toEqual({
      id,
      secret: expect.stringMatching(/^whsec_/),
      previousSecretsExpireAt: expect.any(String),
    });
    expect(rotated.out.secret).not.toBe(made.out.secret);
    const secrets = await db<{ expiring: boolean }[]>`
      select expires_at between now() + interval '23 hours 59 minutes' and now() + interval '24 hours' as expiring
      from webhook_secrets where subscription_id = ${id} order by created_at`;
    expect(secrets.map((s) => s.expiring)).toEqual([true, null as never]);
    expect((await cli(["webhook", "deliveries", "--id", id, "--failed"])).out).toEqual({ deliveries: [] });
    const missing = await cli(["webhook", "disable", "--id", "NOPE"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toEqual({ _tag: "WebhookNotFound", id: "NOPE" });
    expect((await cli(["webhook", "list", "--workspace", ws.slug, "--failed"])).code).toBe(2);
  });

  test("unknown event types are refused naming them and the known ones", async () => {
    const ws = await h.workspace();
    const run = await cli([
      "webhook",
      "create",
      "--workspace",
      ws.slug,
      "--url",
      "https://example.com/",
      "--events",
      "company.created,company.deleted",
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toMatchObject({ _tag: "WebhookEventsUnknown", unknown: ["company.deleted"] });
    expect(run.err.known).toContain("task.cancelled");
  });
});

describe("SSRF rules at creation (WEBHOOKS_ALLOW_PRIVATE off)", () => {
  for (const url of [
    "http://127.0.0.1/hooks",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]/hooks",
    "https://127.0.0.1/hooks",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/hooks",
    "https://[::ffff:10.0.0.1]/hooks",
    "https://[2002:a9fe:a9fe::]/hooks",
    "https://[64:ff9b:1::7f00:1]/hooks",
    "https://localhost/hooks",
    "https://user:pass@example.com/hooks",
  ]) {
    test(`${url} is refused with WebhookUrlRefused, exit 2, and nothing is stored`, async () => {
      const ws = await h.workspace();
      const run = await cli(["webhook", "create", "--workspace", ws.slug, "--url", url, "--events", "*"]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.err).toEqual({ _tag: "WebhookUrlRefused", url, reason: expect.any(String) });
      // The setting that would accept it is named, except where it would not help.
      expect(run.err.reason).toContain(url.includes("@") ? "credentials" : "WEBHOOKS_ALLOW_PRIVATE=true accepts it");
      expect(await db`select 1 from webhook_subscriptions where workspace_id = ${ws.id}`).toHaveLength(0);
    });
  }

  test("a host name resolving to 10.x is refused; one resolving to a public address is accepted", async () => {
    const ws = await h.workspace();
    const input = { workspace: ws.slug, url: "https://hooks.internal.example/", events: "*" };
    const refusal = await createSubscription(db, input, {
      allowPrivate: false,
      lookup: async () => ["10.1.2.3"],
    }).catch((e) => e);
    expect(refusal).toBeInstanceOf(WebhookUrlRefused);
    expect(refusal.toBody().reason).toContain("10.1.2.3 is in 10.0.0.0/8");
    const made = await createSubscription(db, input, { allowPrivate: false, lookup: async () => ["93.184.215.14"] });
    expect(made.status).toBe("active");
  });

  test("addresses hiding a private one are refused, as the URL's host or resolved; none stored", async () => {
    const ws = await h.workspace();
    const hidden = ["2002:7f00:1::", "2002:c0a8:101::", "::ffff:0:127.0.0.1", "2001:0:4136:e378:8000:63bf:3fff:fdd2"];
    for (const ip of [...hidden, "fec0::1", "2001:10::1", "2001:20::1", "3fff::1", "5f00::1", "192.88.99.1"]) {
      const host = ip.includes(":") ? `[${ip}]` : ip;
      for (const [url, lookup, why] of [
        [`https://${host}/hooks`, async () => ["93.184.215.14"], "is not a public address"],
        ["https://hooks.internal.example/", async () => ["93.184.215.14", ip], `${ip} is in `],
      ] as const) {
        const input = { workspace: ws.slug, url, events: "*" };
        const refusal = await createSubscription(db, input, { allowPrivate: false, lookup }).catch((e) => e);
        expect([url, ip, refusal]).toEqual([url, ip, expect.any(WebhookUrlRefused)]);
        expect(refusal.toBody().reason).toContain(why);
      }
    }
    expect(await db`select 1 from webhook_subscriptions where workspace_id = ${ws.id}`).toHaveLength(0);
  });

  test("the address rules", () => {
    const refused = [
      "0.0.0.0",
      "10.0.0.1",
      "100.64.0.1",
      "127.0.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "192.0.2.2",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::10.0.0.1",
      "fd00:ec2::254",
      "fe80::1",
      "ff02::1",
      "2001:db8::1",
    ];
    const allowed = ["93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"];
    expect(refused.filter((ip) => addressRefusal(ip) === undefined)).toEqual([]);
    expect(allowed.filter((ip) => addressRefusal(ip) !== undefined)).toEqual([]);
  });
});
