/**
 * A delivery connects to the address its SSRF check found public, not to the host name resolved a second time (DNS
 * rebinding): the POST goes to the checked address with the URL's host in the Host header and, over https, in the
 * TLS server name that the receiver's certificate must match. The receiver is Bun's own TLS server on 127.0.0.1 with
 * a certificate for hooks.example.test (fixtures/, a test certificate valid until 2125), a name no DNS resolves.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { checkWebhookUrl } from "../../src/webhooks/address.ts";
import { pinned, post } from "../../src/webhooks/deliver.ts";
import { newSecret } from "../../src/webhooks/signature.ts";

const fixtures = join(import.meta.dir, "fixtures");
const cert = readFileSync(join(fixtures, "hooks.example.test.crt"), "utf8");
const key = readFileSync(join(fixtures, "hooks.example.test.key"), "utf8");

const seen: { host: string | null; path: string; headers: Record<string, string>; body: string }[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert, key },
  async fetch(request) {
    const url = new URL(request.url);
    seen.push({
      host: request.headers.get("host"),
      path: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
    });
    return new Response("thanks", { status: 200 });
  },
});
afterAll(() => receiver.stop(true));

const secret = newSecret();
const delivery = { eventId: "01JPINNEDPINNEDPINNEDPINNE", body: '{"hello":"pinned"}', secrets: [secret] };

describe("where a delivery connects", () => {
  test("to the checked address, the host name in Host and in the TLS server name; path and query kept", async () => {
    const target = {
      url: new URL(`https://hooks.example.test:${receiver.port}/in/hooks?tenant=7`),
      address: "127.0.0.1",
    };
    const before = seen.length;
    const exchange = await post(delivery, target, 5000, { ca: cert });
    expect(exchange).toEqual({ status: 200, body: "thanks", error: null });
    const [got] = seen.slice(before);
    expect(got).toMatchObject({ host: `hooks.example.test:${receiver.port}`, path: "/in/hooks?tenant=7" });
    const payload = new Webhook(secret).verify(got!.body, {
      "webhook-id": got!.headers["webhook-id"]!,
      "webhook-timestamp": got!.headers["webhook-timestamp"]!,
      "webhook-signature": got!.headers["webhook-signature"]!,
    });
    expect(payload).toEqual({ hello: "pinned" });
  });

  test("the certificate must match the URL's host name, not the address connected to", async () => {
    const target = { url: new URL(`https://other.example.test:${receiver.port}/in`), address: "127.0.0.1" };
    const before = seen.length;
    const exchange = await post(delivery, target, 5000, { ca: cert });
    expect(exchange.status).toBeNull();
    expect(exchange.error).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(seen.length).toBe(before);
  });

  test("the check's address is the one connected to: IPv4, IPv6 in brackets, http without a server name", async () => {
    const v4 = await checkWebhookUrl("https://hooks.example.test/in?a=1", {
      allowPrivate: false,
      lookup: async () => ["93.184.215.14", "93.184.215.15"],
    });
    expect(v4.address).toBe("93.184.215.14");
    expect(pinned(v4)).toEqual({
      connectTo: "93.184.215.14",
      port: 443,
      host: "hooks.example.test",
      path: "/in?a=1",
      tls: { serverName: "hooks.example.test" },
    });
    const v6 = await checkWebhookUrl("https://hooks.example.test:8443/in", {
      allowPrivate: false,
      lookup: async () => ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
    expect(pinned(v6)).toEqual({
      connectTo: "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
      port: 8443,
      host: "hooks.example.test:8443",
      path: "/in",
      tls: { serverName: "hooks.example.test" },
    });
    // An address literal is connected to as it is; with private addresses allowed nothing is resolved or pinned.
    const literal = await checkWebhookUrl("https://[2606:2800:21f::1]/in", { allowPrivate: false });
    expect(pinned(literal)).toEqual({
      connectTo: "2606:2800:21f::1",
      port: 443,
      host: "[2606:2800:21f::1]",
      path: "/in",
      tls: { serverName: "2606:2800:21f::1" },
    });
    const local = await checkWebhookUrl("http://localhost:9/in", { allowPrivate: true });
    expect(pinned(local)).toEqual({ connectTo: "localhost", port: 9, host: "localhost:9", path: "/in" });
    expect(pinned({ url: new URL("http://hooks.example.test/in"), address: "93.184.215.14" })).toEqual({
      connectTo: "93.184.215.14",
      port: 80,
      host: "hooks.example.test",
      path: "/in",
    });
  });
});
