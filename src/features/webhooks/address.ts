import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Addresses a webhook must not reach unless WEBHOOK_ALLOW_PRIVATE is set: a user's endpoint could
 * otherwise make depot probe its own host or network (SSRF). Node's BlockList also matches an
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) against the IPv4 rules.
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", includes the unspecified 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, includes cloud metadata 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes broadcast 255.255.255.255
] as const) {
  refused.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified ::, loopback ::1 and the deprecated IPv4-compatible ::a.b.c.d
  ["64:ff9b:1::", 48], // local-use NAT64
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // deprecated site-local
  ["ff00::", 8], // multicast
] as const) {
  refused.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether `address` (an IP literal) is loopback, private, link-local, unique-local, unspecified or
 * multicast, or an IPv6 address that carries such an IPv4 address (see `embeddedIpv4`).
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  if (family === 4) return refused.check(address, "ipv4");
  if (refused.check(address, "ipv6")) return true;
  return embeddedIpv4(address).some((ipv4) => refused.check(ipv4, "ipv4"));
}

/**
 * The IPv4 addresses an IPv6 address stands for when a translator or tunnel on the way turns it back
 * into IPv4: a NAT64 gateway reaches `64:ff9b::7f00:1` at 127.0.0.1, a 6to4 relay `2002:7f00:1::`
 * at 127.0.0.1. Such an address is judged by the IPv4 address inside it, so a public one stays
 * allowed. Forms:
 *  - NAT64 well-known prefix `64:ff9b::/96` and IPv4-translated `::ffff:0:0:0/96`: the last 32 bits;
 *  - 6to4 `2002::/16`: bits 16–47;
 *  - Teredo `2001::/32`: both the server (bits 32–63) and the client (the last 32 bits, inverted).
 *    The client address is where a relay finally sends the packet; the server's is included because
 *    a Teredo client on depot's own host talks to it, and no public receiver has a private one.
 * (IPv4-mapped `::ffff:a.b.c.d` needs nothing here: BlockList already matches it as IPv4.)
 */
export function embeddedIpv4(address: string): string[] {
  const groups = hextets(address);
  const h = (index: number) => groups[index] ?? 0;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const ipv4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  if (h(0) === 0x64 && h(1) === 0xff9b && zeros(2, 6)) return [ipv4(h(6), h(7))];
  if (zeros(0, 4) && h(4) === 0xffff && h(5) === 0) return [ipv4(h(6), h(7))];
  if (h(0) === 0x2002) return [ipv4(h(1), h(2))];
  if (h(0) === 0x2001 && h(1) === 0) return [ipv4(h(2), h(3)), ipv4(h(6) ^ 0xffff, h(7) ^ 0xffff)];
  return [];
}

/**
 * The eight 16-bit groups of a valid IPv6 literal (`isIP` said 6): `::` expanded, a dotted IPv4 tail
 * turned into two groups, a zone (`%eth0`) dropped. Lookups return literals as written, so leading
 * zeros and upper case occur.
 */
function hextets(address: string): number[] {
  let text = address.split("%")[0] ?? "";
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill("0"), ...right].map((group) => Number.parseInt(group, 16));
}

/** How long a host name may take to resolve before the URL counts as unresolvable. */
const LOOKUP_TIMEOUT_MS = 5000;

/**
 * What resolving a webhook's host found. The two failures differ for a delivery: `refused` (an
 * address depot must not reach) will not change by retrying, so the delivery fails at once;
 * `unresolved` (DNS failed or timed out) may be a passing network problem, so it is retried.
 */
export type TargetCheck =
  | { ok: true }
  | { ok: false; kind: "refused"; reason: string }
  | { ok: false; kind: "unresolved"; reason: string };

/**
 * Resolves the URL's host (all its addresses) and refuses it when any of them is private. Checked
 * when a webhook is created and again before every delivery, since DNS may have changed since
 * (rebinding). `fetch` resolves once more on its own, so a resolver that answers differently within
 * milliseconds is not excluded; refusing redirects and re-checking per attempt keep that window small.
 */
export async function checkTarget(url: URL, allowPrivate: boolean): Promise<TargetCheck> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  try {
    const results = await withTimeout(lookup(host, { all: true }), LOOKUP_TIMEOUT_MS);
    addresses = results.map((result) => result.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { ok: false, kind: "unresolved", reason: `The host ${host} could not be resolved (${code}).` };
  }
  if (addresses.length === 0) {
    return { ok: false, kind: "unresolved", reason: `The host ${host} could not be resolved.` };
  }
  if (allowPrivate) return { ok: true };
  const blocked = addresses.find(isPrivateAddress);
  if (blocked !== undefined) {
    return {
      ok: false,
      kind: "refused",
      reason: `The host ${host} resolves to ${blocked}, a loopback or private address.`,
    };
  }
  return { ok: true };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("lookup timed out"), { code: "ETIMEOUT" })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
