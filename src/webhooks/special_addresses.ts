/**
 * The address blocks a webhook must not be delivered to, as data: every entry of IANA's IPv4 and IPv6 Special-Purpose
 * Address Registries (https://www.iana.org/assignments/iana-ipv4-special-registry and
 * https://www.iana.org/assignments/iana-ipv6-special-registry, both as last updated 2025-10-09; RFC 6890, RFC 8190),
 * plus the ranges outside them that are never a public destination (multicast, IPv6 outside Global Unicast, the
 * deprecated IPv4-compatible, IPv4-translated and site-local forms). The most specific block holding an address gives
 * its verdict (the registries' own rule: 2001::/23 and 192.0.0.0/24 are "not globally reachable unless by a more
 * specific allocation"); an address in no block is public.
 */

/** What a webhook to an address of a block gets: refused, allowed, or the verdict of the IPv4 address it carries. */
export type Verdict = "refuse" | "allow" | { ipv4At: number };

/** One address block: a registry entry, or a range outside the registries (`globallyReachable` null). */
export interface SpecialBlock {
  /** Network address and prefix length, `10.0.0.0/8`. */
  block: string;
  /** The registry's name of the block. */
  name: string;
  /** The RFC that defines it. */
  rfc: string;
  /** The registry's "Globally Reachable" column; null for a range outside the special-purpose registries. */
  globallyReachable: boolean | "N/A" | null;
  /**
   * "refuse" for every block whose Globally Reachable is not True, "allow" for those where it is True, unless `why`
   * explains otherwise. `{ ipv4At }`: the block carries an IPv4 address at that bit offset, and the packets go to it
   * (through the host's IPv4 stack, a NAT64 or a 6to4 relay): that IPv4 address's verdict is the address's.
   */
  verdict: Verdict;
  /** Why the verdict is not the one the Globally Reachable column gives (N/A, or overruled). */
  why?: string;
}

const refusedAsIdentifiers = "ORCHIDv2-format identifiers, not locators: RFC 7343 section 2 says they are not routable";

/** The IANA IPv4 Special-Purpose Address Registry, in its order, then IPv4 multicast. */
export const ipv4Blocks: readonly SpecialBlock[] = [
  { block: "0.0.0.0/8", name: '"This network"', rfc: "RFC 791", globallyReachable: false, verdict: "refuse" },
  {
    block: "0.0.0.0/32",
    name: '"This host on this network"',
    rfc: "RFC 1122",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "10.0.0.0/8", name: "Private-Use", rfc: "RFC 1918", globallyReachable: false, verdict: "refuse" },
  {
    block: "100.64.0.0/10",
    name: "Shared Address Space",
    rfc: "RFC 6598",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "127.0.0.0/8", name: "Loopback", rfc: "RFC 1122", globallyReachable: false, verdict: "refuse" },
  { block: "169.254.0.0/16", name: "Link Local", rfc: "RFC 3927", globallyReachable: false, verdict: "refuse" },
  { block: "172.16.0.0/12", name: "Private-Use", rfc: "RFC 1918", globallyReachable: false, verdict: "refuse" },
  {
    block: "192.0.0.0/24",
    name: "IETF Protocol Assignments",
    rfc: "RFC 6890",
    globallyReachable: false,
    verdict: "refuse",
  },
  {
    block: "192.0.0.0/29",
    name: "IPv4 Service Continuity Prefix",
    rfc: "RFC 7335",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "192.0.0.8/32", name: "IPv4 dummy address", rfc: "RFC 7600", globallyReachable: false, verdict: "refuse" },
  {
    block: "192.0.0.9/32",
    name: "Port Control Protocol Anycast",
    rfc: "RFC 7723",
    globallyReachable: true,
    verdict: "allow",
  },
  {
    block: "192.0.0.10/32",
    name: "Traversal Using Relays around NAT Anycast",
    rfc: "RFC 8155",
    globallyReachable: true,
    verdict: "allow",
  },
  {
    block: "192.0.0.170/32",
    name: "NAT64/DNS64 Discovery",
    rfc: "RFC 8880",
    globallyReachable: false,
    verdict: "refuse",
  },
  {
    block: "192.0.0.171/32",
    name: "NAT64/DNS64 Discovery",
    rfc: "RFC 8880",
    globallyReachable: false,
    verdict: "refuse",
  },
  {
    block: "192.0.2.0/24",
    name: "Documentation (TEST-NET-1)",
    rfc: "RFC 5737",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "192.31.196.0/24", name: "AS112-v4", rfc: "RFC 7535", globallyReachable: true, verdict: "allow" },
  { block: "192.52.193.0/24", name: "AMT", rfc: "RFC 7450", globallyReachable: true, verdict: "allow" },
  {
    block: "192.88.99.0/24",
    name: "Deprecated (6to4 Relay Anycast)",
    rfc: "RFC 7526",
    globallyReachable: "N/A",
    verdict: "refuse",
    why: "deprecated in 2015; whatever answers there is the nearest relay, not a receiver",
  },
  {
    block: "192.88.99.2/32",
    name: "6a44-relay anycast address",
    rfc: "RFC 6751",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "192.168.0.0/16", name: "Private-Use", rfc: "RFC 1918", globallyReachable: false, verdict: "refuse" },
  {
    block: "192.175.48.0/24",
    name: "Direct Delegation AS112 Service",
    rfc: "RFC 7534",
    globallyReachable: true,
    verdict: "allow",
  },
  { block: "198.18.0.0/15", name: "Benchmarking", rfc: "RFC 2544", globallyReachable: false, verdict: "refuse" },
  {
    block: "198.51.100.0/24",
    name: "Documentation (TEST-NET-2)",
    rfc: "RFC 5737",
    globallyReachable: false,
    verdict: "refuse",
  },
  {
    block: "203.0.113.0/24",
    name: "Documentation (TEST-NET-3)",
    rfc: "RFC 5737",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "240.0.0.0/4", name: "Reserved", rfc: "RFC 1112", globallyReachable: false, verdict: "refuse" },
  {
    block: "255.255.255.255/32",
    name: "Limited Broadcast",
    rfc: "RFC 919",
    globallyReachable: false,
    verdict: "refuse",
  },
  // Outside the special-purpose registry (IANA's IPv4 Multicast Address Space registry): never a unicast destination.
  { block: "224.0.0.0/4", name: "Multicast", rfc: "RFC 5771", globallyReachable: null, verdict: "refuse" },
];

/** The IANA IPv6 Special-Purpose Address Registry, in its order, then the ranges outside it. */
export const ipv6Blocks: readonly SpecialBlock[] = [
  { block: "::1/128", name: "Loopback Address", rfc: "RFC 4291", globallyReachable: false, verdict: "refuse" },
  { block: "::/128", name: "Unspecified Address", rfc: "RFC 4291", globallyReachable: false, verdict: "refuse" },
  {
    block: "::ffff:0:0/96",
    name: "IPv4-mapped Address",
    rfc: "RFC 4291",
    globallyReachable: false,
    verdict: { ipv4At: 96 },
    why: "never sent as IPv6: a socket connects to the IPv4 address it maps",
  },
  {
    block: "64:ff9b::/96",
    name: "IPv4-IPv6 Translation, well-known NAT64 prefix",
    rfc: "RFC 6052",
    globallyReachable: true,
    verdict: { ipv4At: 96 },
    why: "a NAT64 forwards to the IPv4 address it carries, which must be public too (RFC 6052 section 3.1)",
  },
  {
    block: "64:ff9b:1::/48",
    name: "IPv4-IPv6 Translation, local use",
    rfc: "RFC 8215",
    globallyReachable: false,
    verdict: "refuse",
  },
  {
    block: "100::/64",
    name: "Discard-Only Address Block",
    rfc: "RFC 6666",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "100:0:0:1::/64", name: "Dummy IPv6 Prefix", rfc: "RFC 9780", globallyReachable: false, verdict: "refuse" },
  {
    block: "2001::/23",
    name: "IETF Protocol Assignments",
    rfc: "RFC 2928",
    globallyReachable: false,
    verdict: "refuse",
  },
  {
    block: "2001::/32",
    name: "TEREDO",
    rfc: "RFC 4380",
    globallyReachable: "N/A",
    verdict: "refuse",
    why: "tunnels over UDP to a server and a client IPv4 address (the client's obfuscated); no receiver lives there",
  },
  {
    block: "2001:1::1/128",
    name: "Port Control Protocol Anycast",
    rfc: "RFC 7723",
    globallyReachable: true,
    verdict: "allow",
  },
  {
    block: "2001:1::2/128",
    name: "Traversal Using Relays around NAT Anycast",
    rfc: "RFC 8155",
    globallyReachable: true,
    verdict: "allow",
  },
  {
    block: "2001:1::3/128",
    name: "DNS-SD Service Registration Protocol Anycast",
    rfc: "RFC 9665",
    globallyReachable: true,
    verdict: "allow",
  },
  { block: "2001:2::/48", name: "Benchmarking", rfc: "RFC 5180", globallyReachable: false, verdict: "refuse" },
  { block: "2001:3::/32", name: "AMT", rfc: "RFC 7450", globallyReachable: true, verdict: "allow" },
  { block: "2001:4:112::/48", name: "AS112-v6", rfc: "RFC 7535", globallyReachable: true, verdict: "allow" },
  {
    block: "2001:10::/28",
    name: "Deprecated (previously ORCHID)",
    rfc: "RFC 4843",
    globallyReachable: "N/A",
    verdict: "refuse",
    why: "returned to IANA in 2014; identifiers, never locators",
  },
  {
    block: "2001:20::/28",
    name: "ORCHIDv2",
    rfc: "RFC 7343",
    globallyReachable: true,
    verdict: "refuse",
    why: refusedAsIdentifiers,
  },
  {
    block: "2001:30::/28",
    name: "Drone Remote ID Protocol Entity Tags (DETs) Prefix",
    rfc: "RFC 9374",
    globallyReachable: true,
    verdict: "refuse",
    why: refusedAsIdentifiers,
  },
  { block: "2001:db8::/32", name: "Documentation", rfc: "RFC 3849", globallyReachable: false, verdict: "refuse" },
  {
    block: "2002::/16",
    name: "6to4",
    rfc: "RFC 3056",
    globallyReachable: "N/A",
    verdict: { ipv4At: 16 },
    why: "packets go to the 6to4 router at the IPv4 address in bits 16-47, which must be public",
  },
  {
    block: "2620:4f:8000::/48",
    name: "Direct Delegation AS112 Service",
    rfc: "RFC 7534",
    globallyReachable: true,
    verdict: "allow",
  },
  { block: "3fff::/20", name: "Documentation", rfc: "RFC 9637", globallyReachable: false, verdict: "refuse" },
  {
    block: "5f00::/16",
    name: "Segment Routing (SRv6) SIDs",
    rfc: "RFC 9602",
    globallyReachable: false,
    verdict: "refuse",
  },
  { block: "fc00::/7", name: "Unique-Local", rfc: "RFC 4193", globallyReachable: false, verdict: "refuse" },
  { block: "fe80::/10", name: "Link-Local Unicast", rfc: "RFC 4291", globallyReachable: false, verdict: "refuse" },
  // Outside the special-purpose registry. Global Unicast is 2000::/3 (RFC 4291 section 2.4, IANA's IPv6 Address Space
  // registry); the rest is reserved by the IETF, multicast or local, and never a public destination. The blocks
  // below name the parts of it a lookup may well return.
  {
    block: "::/3",
    name: "Reserved by IETF, outside Global Unicast",
    rfc: "RFC 4291",
    globallyReachable: null,
    verdict: "refuse",
  },
  {
    block: "4000::/2",
    name: "Reserved by IETF, outside Global Unicast",
    rfc: "RFC 4291",
    globallyReachable: null,
    verdict: "refuse",
  },
  {
    block: "8000::/1",
    name: "Reserved by IETF, outside Global Unicast",
    rfc: "RFC 4291",
    globallyReachable: null,
    verdict: "refuse",
  },
  {
    block: "::/96",
    name: "IPv4-compatible Address, deprecated",
    rfc: "RFC 4291",
    globallyReachable: null,
    verdict: "refuse",
  },
  {
    block: "::ffff:0:0:0/96",
    name: "IPv4-translated Address, SIIT (obsoleted)",
    rfc: "RFC 2765",
    globallyReachable: null,
    verdict: "refuse",
  },
  {
    block: "fec0::/10",
    name: "Site-Local Unicast, deprecated",
    rfc: "RFC 3879",
    globallyReachable: null,
    verdict: "refuse",
  },
  { block: "ff00::/8", name: "Multicast", rfc: "RFC 4291", globallyReachable: null, verdict: "refuse" },
];
