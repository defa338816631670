import { isIP } from "node:net";

/**
 * The caller's address. Behind a proxy (TRUST_PROXY=true) it is the last `X-Forwarded-For` entry, the
 * one our proxy appended; earlier entries come from the client and could be anything. Exactly one
 * trusted hop is assumed.
 */
export function clientIp(
  request: Request,
  socketAddress: string | null | undefined,
  trustProxy: boolean,
): string | null {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    const ip = forwarded ? normaliseIp(forwarded) : null;
    if (ip) return ip;
  }
  return socketAddress ? normaliseIp(socketAddress) : null;
}

/**
 * One spelling per address, so the same client is not counted twice: IPv4-mapped IPv6 becomes IPv4,
 * IPv6 is compressed and lower-cased. Anything that is not an address is null.
 */
export function normaliseIp(raw: string): string | null {
  const text = raw.trim().replace(/^\[(.*)\]$/, "$1");
  const version = isIP(text);
  if (version === 4) return text;
  // A zone index (fe80::1%eth0) only means something on our own host: not a client address.
  if (version !== 6 || text.includes("%")) return null;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(canonical);
  if (mapped?.[1]) return mapped[1];
  // The URL parser writes mapped IPv4 in hex (::ffff:7f00:1); turn it back into dotted form.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  return canonical;
}
