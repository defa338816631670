import { describe, expect, test } from "bun:test";
import { isPrivateAddress } from "../src/features/webhooks/address.ts";

/**
 * The webhook address filter on its own (docs/vendors.md, Webhooks): IPv6 forms that carry an IPv4 address
 * are judged by that IPv4 address. tests/webhooks.test.ts shows the same through the HTTP API.
 */
describe("isPrivateAddress", () => {
  test.each([
    ["64:ff9b::7f00:1", "NAT64 of 127.0.0.1"],
    ["64:ff9b::127.0.0.1", "NAT64 of 127.0.0.1, dotted"],
    ["64:ff9b::a00:1", "NAT64 of 10.0.0.1"],
    ["64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254"],
    ["64:FF9B:0:0:0:0:c0a8:101", "NAT64 of 192.168.1.1, upper case, uncompressed"],
    ["2002:7f00:1::", "6to4 of 127.0.0.1"],
    ["2002:c0a8:0101::1", "6to4 of 192.168.1.1"],
    ["2002:a9fe:a9fe:1:2:3:4:5", "6to4 of 169.254.169.254"],
    ["2002:0:0::", "6to4 of 0.0.0.0"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo, client 127.0.0.1"],
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo, client 10.0.0.1"],
    ["2001:0:a00:1:8000:63bf:3fd7:ddf5", "Teredo, server 10.0.0.1"],
    ["::ffff:0:7f00:1", "IPv4-translated 127.0.0.1"],
    ["::ffff:127.0.0.1", "IPv4-mapped 127.0.0.1"],
    ["fe80::1%eth0", "link-local with a zone"],
  ])("%s (%s) is refused", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  test.each([
    ["64:ff9b::5db8:d822", "NAT64 of 93.184.216.34"],
    ["64:ff9b::93.184.216.34", "NAT64 of 93.184.216.34, dotted"],
    ["2002:5db8:d822::1", "6to4 of 93.184.216.34"],
    ["2001:0:4136:e378:8000:63bf:a247:27dd", "Teredo, server 65.54.227.120, client 93.184.216.34"],
    ["2001:db8::7f00:1", "documentation prefix, 127.0.0.1 in its last 32 bits: not an embedding"],
    ["2606:4700:4700::1111", "a public IPv6 address"],
    ["93.184.216.34", "a public IPv4 address"],
  ])("%s (%s) is allowed", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
