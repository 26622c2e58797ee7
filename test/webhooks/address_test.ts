/**
 * Which addresses a webhook may be delivered to: every entry of IANA's special-purpose registries (its first address
 * and one inside), the ranges outside them, the IPv6 forms that hide an IPv4 address, and the addresses issue 35's red
 * team found accepted; at creation (the URL's own address) and at delivery (the addresses a lookup answers, checked
 * before connecting). No test connects anywhere: the lookups are functions answering fixed addresses.
 */
import { describe, expect, test } from "bun:test";
import { addressRefusal, checkWebhookUrl } from "../../src/webhooks/address.ts";
import { WebhookUrlRefused } from "../../src/webhooks/errors.ts";
import { ipv4Blocks, ipv6Blocks, type SpecialBlock } from "../../src/webhooks/special_addresses.ts";

const v4Number = (ip: string) => ip.split(".").reduce((n, part) => (n << 8n) | BigInt(part), 0n);
const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((shift) => (n >> shift) & 255n).join(".");
function v6Number(ip: string): bigint {
  const [head, tail] = ip.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => BigInt(`0x${g}`)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  return [...h, ...Array(8 - h.length - t.length).fill(0n), ...t].reduce((n, g) => (n << 16n) | g, 0n);
}
/** An IPv6 address as 8 groups, written in its shortest form by the URL parser. */
const v6Text = (n: bigint) => {
  const groups = Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(":")}]`).hostname.slice(1, -1);
};

/** A block's first address, one well inside it, and the address carrying `ipv4` at `bit` (IPv6 blocks). */
function addressesOf(b: SpecialBlock, family: 4 | 6) {
  const [network, bits] = b.block.split("/") as [string, string];
  const width = family === 4 ? 32n : 128n;
  const first = family === 4 ? v4Number(network) : v6Number(network);
  const size = 1n << (width - BigInt(bits));
  const inside = size > 2n ? first + size / 2n + 1n : first;
  const text = family === 4 ? v4Text : v6Text;
  const carrying = (ipv4: string, bit: number) => v6Text(first + (v4Number(ipv4) << (96n - BigInt(bit))));
  return { first: text(first), inside: text(inside), carrying };
}

/** The issue's addresses (point 6), each with what its refusal must name. */
const issueAddresses: [string, string][] = [
  ["2002:7f00:1::", "carries 127.0.0.1: 127.0.0.1 is in 127.0.0.0/8"],
  ["2002:a9fe:a9fe::", "carries 169.254.169.254: 169.254.169.254 is in 169.254.0.0/16"],
  ["2002:c0a8:101::", "carries 192.168.1.1: 192.168.1.1 is in 192.168.0.0/16"],
  ["64:ff9b:1::7f00:1", "is in 64:ff9b:1::/48"],
  ["::ffff:0:127.0.0.1", "is in ::ffff:0:0:0/96"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "is in 2001::/32 (TEREDO"],
  ["fec0::1", "is in fec0::/10"],
  ["2001:10::1", "is in 2001:10::/28"],
  ["2001:20::1", "is in 2001:20::/28"],
  ["3fff::1", "is in 3fff::/20"],
  ["5f00::1", "is in 5f00::/16"],
  ["192.88.99.1", "is in 192.88.99.0/24"],
];

const publicAddresses = ["8.8.8.8", "93.184.215.14", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2a00:1450::1"];

describe("the special-purpose blocks", () => {
  test("the table holds every entry of both IANA registries (2025-10-09) with its Globally Reachable column", () => {
    const column = (blocks: readonly SpecialBlock[]) =>
      blocks.filter((b) => b.globallyReachable !== null).map((b) => `${b.block} ${b.globallyReachable}`);
    expect(column(ipv4Blocks)).toEqual([
      "0.0.0.0/8 false",
      "0.0.0.0/32 false",
      "10.0.0.0/8 false",
      "100.64.0.0/10 false",
      "127.0.0.0/8 false",
      "169.254.0.0/16 false",
      "172.16.0.0/12 false",
      "192.0.0.0/24 false",
      "192.0.0.0/29 false",
      "192.0.0.8/32 false",
      "192.0.0.9/32 true",
      "192.0.0.10/32 true",
      "192.0.0.170/32 false",
      "192.0.0.171/32 false",
      "192.0.2.0/24 false",
      "192.31.196.0/24 true",
      "192.52.193.0/24 true",
      "192.88.99.0/24 N/A",
      "192.88.99.2/32 false",
      "192.168.0.0/16 false",
      "192.175.48.0/24 true",
      "198.18.0.0/15 false",
      "198.51.100.0/24 false",
      "203.0.113.0/24 false",
      "240.0.0.0/4 false",
      "255.255.255.255/32 false",
    ]);
    expect(column(ipv6Blocks)).toEqual([
      "::1/128 false",
      "::/128 false",
      "::ffff:0:0/96 false",
      "64:ff9b::/96 true",
      "64:ff9b:1::/48 false",
      "100::/64 false",
      "100:0:0:1::/64 false",
      "2001::/23 false",
      "2001::/32 N/A",
      "2001:1::1/128 true",
      "2001:1::2/128 true",
      "2001:1::3/128 true",
      "2001:2::/48 false",
      "2001:3::/32 true",
      "2001:4:112::/48 true",
      "2001:10::/28 N/A",
      "2001:20::/28 true",
      "2001:30::/28 true",
      "2001:db8::/32 false",
      "2002::/16 N/A",
      "2620:4f:8000::/48 true",
      "3fff::/20 false",
      "5f00::/16 false",
      "fc00::/7 false",
      "fe80::/10 false",
    ]);
    const outside = [...ipv4Blocks, ...ipv6Blocks].filter((b) => b.globallyReachable === null).map((b) => b.block);
    expect(outside).toEqual([
      "224.0.0.0/4",
      "::/3",
      "4000::/2",
      "8000::/1",
      "::/96",
      "::ffff:0:0:0/96",
      "fec0::/10",
      "ff00::/8",
    ]);
  });

  test("a block is refused unless Globally Reachable is True; the departures are these, each with its reason", () => {
    const all = [...ipv4Blocks, ...ipv6Blocks];
    const asColumn = (b: SpecialBlock) => b.verdict === (b.globallyReachable === true ? "allow" : "refuse");
    expect(all.filter((b) => !asColumn(b)).map((b) => `${b.block} ${JSON.stringify(b.verdict)}`)).toEqual([
      '::ffff:0:0/96 {"ipv4At":96}', // False, but what is connected to is the IPv4 address it maps
      '64:ff9b::/96 {"ipv4At":96}', // True, if the IPv4 address it carries is public
      '2001:20::/28 "refuse"', // True, but identifiers, not locators
      '2001:30::/28 "refuse"',
      '2002::/16 {"ipv4At":16}', // 6to4, N/A: the relay's IPv4 address decides
    ]);
    // Each departure, and each N/A (192.88.99.0/24, Teredo, the returned ORCHID prefix: refused), says why.
    expect(all.filter((b) => (!asColumn(b) || b.globallyReachable === "N/A") && !b.why)).toEqual([]);
    expect(all.filter((b) => b.verdict === "allow").map((b) => b.block)).toEqual([
      "192.0.0.9/32",
      "192.0.0.10/32",
      "192.31.196.0/24",
      "192.52.193.0/24",
      "192.175.48.0/24",
      "2001:1::1/128",
      "2001:1::2/128",
      "2001:1::3/128",
      "2001:3::/32",
      "2001:4:112::/48",
      "2620:4f:8000::/48",
    ]);
  });

  for (const [family, blocks] of [
    [4, ipv4Blocks],
    [6, ipv6Blocks],
  ] as const) {
    for (const b of blocks) {
      const { first, inside, carrying } = addressesOf(b, family);
      if (b.verdict === "refuse") {
        test(`${b.block} ${b.name}: ${first} and ${inside} are refused`, () => {
          expect(addressRefusal(first)).toBeString();
          expect(addressRefusal(inside)).toBe(`${inside} is in ${b.block} (${b.name}, ${b.rfc})`);
        });
      } else if (b.verdict === "allow") {
        test(`${b.block} ${b.name} (globally reachable): ${first} and ${inside} pass`, () => {
          expect(addressRefusal(first)).toBeUndefined();
          expect(addressRefusal(inside)).toBeUndefined();
        });
      } else {
        const { ipv4At } = b.verdict;
        test(`${b.block} ${b.name}: the IPv4 address it carries decides`, () => {
          expect(addressRefusal(first)).toContain(`is in ${b.block} (${b.name}, ${b.rfc}) and carries 0.0.0.0: `);
          expect(addressRefusal(inside)).toBeUndefined();
          for (const hidden of ["127.0.0.1", "10.1.2.3", "169.254.169.254", "100.64.0.1", "192.88.99.1", "224.0.0.1"]) {
            expect(addressRefusal(carrying(hidden, ipv4At))).toContain(`carries ${hidden}: ${hidden} is in `);
          }
          expect(addressRefusal(carrying("8.8.8.8", ipv4At))).toBeUndefined();
        });
      }
    }
  }
});

describe("addresses that hide a private one", () => {
  test("the addresses issue 35 found accepted are refused, each naming its block", () => {
    for (const [ip, why] of issueAddresses)
      expect([ip, addressRefusal(ip)]).toEqual([ip, expect.stringContaining(why)]);
  });

  test("IPv4-mapped, NAT64 and 6to4 forms take the verdict of their IPv4 address, in hex or dotted spelling", () => {
    const refused = [
      "::ffff:127.0.0.1",
      "::FFFF:7F00:1",
      "0:0:0:0:0:ffff:a9fe:a9fe",
      "64:ff9b::7f00:1",
      "2002:a00:1::1",
    ];
    const allowed = ["::ffff:8.8.8.8", "::ffff:808:808", "64:ff9b::8.8.8.8", "2002:808:808::1"];
    expect(refused.filter((ip) => addressRefusal(ip) === undefined)).toEqual([]);
    expect(allowed.filter((ip) => addressRefusal(ip) !== undefined)).toEqual([]);
  });

  test("IPv4-compatible, IPv4-translated and Teredo are refused whatever IPv4 address they carry", () => {
    // Teredo 2001:0:<server>:<flags>:<port ^ 0xffff>:<client ^ 0xffffffff>: here server and client are 8.8.8.8.
    for (const ip of ["::8.8.8.8", "::ffff:0:8.8.8.8", "::ffff:0:808:808", "2001:0:808:808:0:0:f7f7:f7f7"]) {
      expect([ip, addressRefusal(ip)]).toEqual([
        ip,
        expect.stringMatching(/is in (::\/96|::ffff:0:0:0\/96|2001::\/32)/),
      ]);
    }
  });

  test("public addresses pass; a zone index and a non-address are refused", () => {
    expect(publicAddresses.filter((ip) => addressRefusal(ip) !== undefined)).toEqual([]);
    expect(addressRefusal("fe80::1%eth0")).toContain("zone index");
    expect(addressRefusal("2606:4700::1111%1")).toContain("zone index");
    expect(addressRefusal("hooks.example")).toBe("hooks.example is not an IP address");
  });
});

async function refusal(url: string, options: Parameters<typeof checkWebhookUrl>[1]) {
  const error = await checkWebhookUrl(url, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookUrlRefused);
  return (error as WebhookUrlRefused).fields.reason;
}

const literal = (ip: string) => (ip.includes(":") ? `https://[${ip}]/hooks` : `https://${ip}/hooks`);

describe("the URL check, at creation and before each delivery", () => {
  test("a URL naming one of these addresses is refused, saying what WEBHOOKS_ALLOW_PRIVATE would do", async () => {
    for (const [ip, why] of issueAddresses) {
      const reason = await refusal(literal(ip), { allowPrivate: false, lookup: async () => ["93.184.215.14"] });
      expect(reason).toContain(why);
      expect(reason).toContain("is not a public address");
      expect(reason).toContain("WEBHOOKS_ALLOW_PRIVATE=true accepts it");
    }
  });

  test("a host name resolving to one of them is refused after the lookup, before any connection", async () => {
    for (const [ip, why] of issueAddresses) {
      const reason = await refusal("https://hooks.example.test/in", { allowPrivate: false, lookup: async () => [ip] });
      expect(reason).toContain(`hooks.example.test resolves to an address that is not public: ${ip}`);
      expect(reason).toContain(why);
      expect(reason).toContain("WEBHOOKS_ALLOW_PRIVATE=true accepts it");
    }
    // One hidden address among public ones is enough (a connection may go to any of them).
    const mixed = async () => ["93.184.215.14", "2606:4700::1111", "2002:a9fe:a9fe::"];
    expect(await refusal("https://hooks.example.test/in", { allowPrivate: false, lookup: mixed })).toContain(
      "carries 169.254.169.254",
    );
  });

  test("a host resolving only to public addresses passes and is pinned to the first", async () => {
    const target = await checkWebhookUrl("https://hooks.example.test/in", {
      allowPrivate: false,
      lookup: async () => ["2002:808:808::1", "64:ff9b::8.8.8.8", "93.184.215.14"],
    });
    expect(target.address).toBe("2002:808:808::1");
  });

  test("with WEBHOOKS_ALLOW_PRIVATE on they are accepted, nothing resolved", async () => {
    const lookup = async (): Promise<string[]> => {
      throw new Error("no lookup with private addresses allowed");
    };
    for (const [ip] of issueAddresses) {
      expect(await checkWebhookUrl(literal(ip), { allowPrivate: true, lookup })).toEqual({ url: new URL(literal(ip)) });
    }
    const http = await checkWebhookUrl("http://hooks.example.test/in", { allowPrivate: true, lookup });
    expect(http.address).toBeUndefined();
  });

  test("an http:// URL is refused naming WEBHOOKS_ALLOW_PRIVATE; another scheme is refused without it", async () => {
    const http = await refusal("http://hooks.example.test/in", { allowPrivate: false });
    const hint = "WEBHOOKS_ALLOW_PRIVATE=true accepts it, for tests and local development only";
    expect(http).toBe(`a webhook URL must start with https://; ${hint}`);
    expect(await refusal("ftp://hooks.example.test/in", { allowPrivate: false })).toBe(
      "a webhook URL must start with https://",
    );
    expect(await refusal("ftp://hooks.example.test/in", { allowPrivate: true })).toBe(
      "a webhook URL must start with https:// or http://",
    );
  });
});
