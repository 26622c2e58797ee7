/**
 * The SSRF rules of webhook URLs: https only, and only public addresses, checked after resolving the name. Public means
 * in no block of special_addresses.ts (IANA's special-purpose registries and the ranges never public), so no loopback,
 * private, link-local, metadata, shared, reserved or multicast address, nor one hidden in an IPv6 form that carries an
 * IPv4 address (mapped, NAT64, 6to4) or in a tunnel or translation prefix (Teredo, local-use NAT64, IPv4-translated).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { WebhookUrlRefused } from "./errors.ts";
import { ipv4Blocks, ipv6Blocks, type SpecialBlock } from "./special_addresses.ts";

/** Resolves a host name to its addresses (node's `dns.lookup` with `all`, by default). */
export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** What WEBHOOKS_ALLOW_PRIVATE (src/config.ts) lifts, said wherever it would let a refused URL through. */
const allowPrivateHint = "WEBHOOKS_ALLOW_PRIVATE=true accepts it, for tests and local development only";

/**
 * A family's blocks, most specific first, each in a BlockList of its own (node:net's, which Bun 1.4.5 matches exactly
 * as Node 20 does for IPv4, IPv6 and IPv4-mapped addresses; probed). An address is only ever checked against its own
 * family's blocks: a BlockList matches an IPv4 address against IPv6 subnets as ::ffff:a.b.c.d (so ::/3 would hold every
 * IPv4 address), and Bun 1.3.14 crashed on that crossing with an IPv4-mapped subnet on Windows (oven-sh/bun#33296).
 */
function compile(blocks: readonly SpecialBlock[], family: "ipv4" | "ipv6") {
  return blocks
    .map((entry) => {
      const [network, bits] = entry.block.split("/") as [string, string];
      const list = new BlockList();
      list.addSubnet(network, Number(bits), family);
      return { entry, list, bits: Number(bits) };
    })
    .sort((a, b) => b.bits - a.bits);
}

const blocks = { 4: compile(ipv4Blocks, "ipv4"), 6: compile(ipv6Blocks, "ipv6") };

/** The most specific special block holding the address, or undefined for a public one. */
function blockOf(ip: string, family: 4 | 6): SpecialBlock | undefined {
  const type = family === 4 ? "ipv4" : "ipv6";
  return blocks[family].find((b) => b.list.check(ip, type))?.entry;
}

/** The IPv4 address an IPv6 address carries at a bit offset (a multiple of 16). */
function ipv4Inside(ip: string, bit: number): string {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = dotted[1]!.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
    text = `${text.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  const groups = [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  const [high, low] = [groups[bit / 16]!, groups[bit / 16 + 1]!];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Why an IP address must not be called, or undefined when it is a public address. */
export function addressRefusal(ip: string): string | undefined {
  const family = isIP(ip);
  if (family !== 4 && family !== 6) return `${ip} is not an IP address`;
  if (ip.includes("%")) return `${ip} has a zone index (link-local or multicast)`;
  const block = blockOf(ip, family);
  if (!block || block.verdict === "allow") return undefined;
  const where = `${block.block} (${block.name}, ${block.rfc})`;
  if (block.verdict === "refuse") return `${ip} is in ${where}`;
  const inside = ipv4Inside(ip, block.verdict.ipv4At);
  const why = addressRefusal(inside);
  return why && `${ip} is in ${where} and carries ${inside}: ${why}`;
}

/** A checked webhook URL, and the address a delivery connects to: the one the check found public (pinned). */
export interface WebhookTarget {
  url: URL;
  /** Undefined when the host is an IP address already, or when private addresses are allowed (nothing resolved). */
  address?: string;
}

/**
 * Checks a subscription URL: https, no credentials, and a host that resolves only to public addresses. With
 * `allowPrivate` (WEBHOOKS_ALLOW_PRIVATE) any http(s) URL passes. Throws WebhookUrlRefused. A delivery connects to
 * the returned address, not to the host name resolved again: a name whose records change between the check and the
 * connection (DNS rebinding) cannot lead the POST to a private address.
 */
export async function checkWebhookUrl(
  url: string,
  options: { allowPrivate: boolean; lookup?: Lookup },
): Promise<WebhookTarget> {
  const refuse = (reason: string) => new WebhookUrlRefused({ url, reason });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse("not a URL");
  }
  if (url.length > 2000) throw refuse("longer than 2000 characters");
  if (parsed.protocol !== "https:" && !(options.allowPrivate && parsed.protocol === "http:")) {
    if (parsed.protocol === "http:") throw refuse(`a webhook URL must start with https://; ${allowPrivateHint}`);
    throw refuse(`a webhook URL must start with https://${options.allowPrivate ? " or http://" : ""}`);
  }
  if (parsed.username || parsed.password) throw refuse("a webhook URL must not carry credentials");
  if (options.allowPrivate) return { url: parsed };
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host);
    } catch (error) {
      throw refuse(`${host} does not resolve: ${(error as Error).message}`);
    }
    if (!addresses.length) throw refuse(`${host} does not resolve`);
  }
  for (const address of addresses) {
    const why = addressRefusal(address);
    if (why && isIP(host)) throw refuse(`${host} is not a public address: ${why}; ${allowPrivateHint}`);
    if (why) throw refuse(`${host} resolves to an address that is not public: ${why}; ${allowPrivateHint}`);
  }
  return isIP(host) ? { url: parsed } : { url: parsed, address: addresses[0]! };
}
