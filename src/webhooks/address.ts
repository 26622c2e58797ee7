/**
 * The SSRF rules of webhook URLs: https only, and no address the service's own network could reach by accident
 * (loopback, private, link-local, cloud metadata, shared, reserved, multicast), checked after resolving the name.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { WebhookUrlRefused } from "./errors.ts";

/** Resolves a host name to its addresses (node's `dns.lookup` with `all`, by default). */
export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

// [first address as a number, prefix length]
const v4Blocked: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

function v4Number(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function v4Refusal(ip: string): string | undefined {
  const n = v4Number(ip);
  for (const [base, bits] of v4Blocked) {
    const size = 2 ** (32 - bits);
    const start = v4Number(base);
    if (n >= start && n < start + size) return `${ip} is in ${base}/${bits}`;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded IPv4 tail converted). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split("%")[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = v4Number(v4[1]!);
    text = `${text.slice(0, -v4[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

function v6Refusal(ip: string): string | undefined {
  const g = v6Groups(ip);
  const zeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embeddedV4 = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  if (zeroUntil(8)) return `${ip} is the unspecified address`;
  if (zeroUntil(7) && g[7] === 1) return `${ip} is loopback`;
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address.
  if (
    (zeroUntil(5) && (g[5] === 0xffff || g[5] === 0)) ||
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
  ) {
    const inner = v4Refusal(embeddedV4);
    if (inner) return `${ip} carries ${inner}`;
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return `${ip} is a unique local address (fc00::/7)`;
  if ((g[0]! & 0xffc0) === 0xfe80) return `${ip} is link-local (fe80::/10)`;
  if ((g[0]! & 0xff00) === 0xff00) return `${ip} is multicast (ff00::/8)`;
  if (g[0] === 0x2001 && g[1] === 0xdb8) return `${ip} is documentation (2001:db8::/32)`;
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return `${ip} is discard (100::/64)`;
  return undefined;
}

/** Why an IP address must not be called, or undefined when it is a public address. */
export function addressRefusal(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 4) return v4Refusal(ip);
  if (family === 6) return v6Refusal(ip);
  return `${ip} is not an IP address`;
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
    throw refuse("a webhook URL must start with https://");
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
    if (why) throw refuse(`${host} resolves to a private, loopback, link-local or reserved address: ${why}`);
  }
  return isIP(host) ? { url: parsed } : { url: parsed, address: addresses[0]! };
}
