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

/** Whether `address` (an IP literal) is loopback, private, link-local, unique-local, unspecified or multicast. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return refused.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** How long a host name may take to resolve before the URL counts as unresolvable. */
const LOOKUP_TIMEOUT_MS = 5000;

export type TargetCheck = { ok: true } | { ok: false; reason: string };

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
    return { ok: false, reason: `The host ${host} could not be resolved (${code}).` };
  }
  if (addresses.length === 0) return { ok: false, reason: `The host ${host} could not be resolved.` };
  if (allowPrivate) return { ok: true };
  const blocked = addresses.find(isPrivateAddress);
  if (blocked !== undefined) {
    return {
      ok: false,
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
