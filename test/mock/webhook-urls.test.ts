import { describe, expect, it } from "vitest";
import {
  isReservedTestName,
  nonPublicReason,
  parseIPv4,
  parseIPv6,
} from "../../src/mock/model/webhook-urls.js";

describe("IP address parsing", () => {
  it.each([
    ["::", [0, 0, 0, 0, 0, 0, 0, 0]],
    ["::1", [0, 0, 0, 0, 0, 0, 0, 1]],
    ["fe80::1%eth0", [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ["2001:db8::8:800:200c:417a", [0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]],
    ["::ffff:192.168.0.1", [0, 0, 0, 0, 0, 0xffff, 0xc0a8, 0x0001]],
    ["1:2:3:4:5:6:7:8", [1, 2, 3, 4, 5, 6, 7, 8]],
    ["1:2:3:4:5:6:1.2.3.4", [1, 2, 3, 4, 5, 6, 0x102, 0x304]],
  ])("parses IPv6 %s", (text, groups) => {
    expect(parseIPv6(text)).toEqual(groups);
  });

  it.each(["1:2:3:4:5:6:7", "1::2::3", "12345::", "::g", "1:2:3:4:5:6:7:8:9", "::1.2.3", ""])(
    "refuses %j as IPv6",
    (text) => {
      expect(parseIPv6(text)).toBeUndefined();
    },
  );

  it("reads only dotted-decimal IPv4 (URL parsing has normalized the other forms)", () => {
    expect(parseIPv4("127.0.0.1")).toEqual([127, 0, 0, 1]);
    for (const text of ["127.1", "0177.0.0.1", "256.0.0.1", "1.2.3", "a.b.c.d"]) {
      expect(parseIPv4(text)).toBeUndefined();
    }
  });
});

describe("which addresses are public", () => {
  it.each([
    ["8.8.8.8"],
    ["93.184.215.14"],
    ["172.32.0.1"],
    ["100.128.0.1"],
    ["2606:4700::1111"],
    ["64:ff9b::808:808"],
    ["2002:808:808::1"],
  ])("%s is public", (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });

  it.each([
    ["127.0.0.1", /loopback/],
    ["10.255.255.255", /private/],
    ["172.16.0.0", /private/],
    ["192.168.255.1", /private/],
    ["169.254.1.1", /link-local/],
    ["100.127.255.255", /shared/],
    ["0.1.2.3", /unspecified/],
    ["198.19.0.1", /benchmarking/],
    ["239.1.1.1", /multicast/],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["::ffff:8.8.8.8", /IPv4-mapped/],
    ["::127.0.0.1", /IPv4-compatible/],
    ["fe80::abcd", /link-local/],
    ["febf::1", /link-local/],
    ["fc00::1", /unique-local/],
    ["fdff::1", /unique-local/],
    ["fec0::1", /site-local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /documentation/],
    ["2001::1", /Teredo/],
    ["64:ff9b::7f00:1", /NAT64.*loopback/],
    ["2002:7f00:1::", /6to4.*loopback/],
    ["not-an-ip", /not a valid/],
  ])("%s is refused", (address, reason) => {
    expect(nonPublicReason(address)).toMatch(reason);
  });
});

describe("names reserved for tests and documentation", () => {
  it("are recognised (the default resolver does not look them up at creation)", () => {
    for (const name of [
      "hooks.test",
      "a.b.example",
      "x.invalid",
      "example.com",
      "hooks.example.org",
    ]) {
      expect(isReservedTestName(name)).toBe(true);
    }
    for (const name of ["hooks.firm.com", "example.com.evil.net", "notexample.com", "test.com"]) {
      expect(isReservedTestName(name)).toBe(false);
    }
  });
});
