/**
 * SSRF: the reference server refuses webhook URLs that reach a non-public
 * address, whatever way the address is written, on creation (POST
 * /v2/webhooks) and on change (PATCH url), unless `allowPrivateWebhookUrls`.
 * test/mock/webhooks.test.ts covers the main forms on POST; this file runs
 * every form through both operations, both settings, and adds the spellings
 * URL parsing folds onto an address (percent-encoding, full-width and
 * circled characters, trailing dots, mixed radixes), names that resolve to a
 * private address, and a name that does so only by the time of delivery
 * (DNS rebinding).
 */
import { describe, expect, it } from "vitest";
import { createMockService, type MockServiceOptions } from "../../src/mock/index.js";
import { emitEventForTesting } from "../helpers/mock-internals.js";

const EVENT = "retrieval_request.status_changed";
const PUBLIC_URL = "https://hooks.example.test/medrecords";

function setup(options: MockServiceOptions = {}) {
  const mock = createMockService({ delivery: "inbox", lookupHost: async () => [], ...options });
  const key = mock.apiKeys.create();
  const call = async (method: string, path: string, body: unknown) => {
    const response = await mock.fetch(`${mock.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as {
      id?: string;
      url?: string;
      error?: { code: string; message: string };
    };
    return { status: response.status, body: json };
  };
  let n = 0;
  const create = (url: string) =>
    call("POST", "/v2/webhooks", { name: `hook ${n++}`, url, events: [EVENT] });
  const patch = (id: string, url: string) => call("PATCH", `/v2/webhooks/${id}`, { url });
  const read = async (id: string) => (await call("GET", `/v2/webhooks/${id}`, undefined)).body;
  return { mock, create, patch, read };
}

/** Each form, as written, and what it is. */
const NON_PUBLIC: ReadonlyArray<[string, string]> = [
  // Private (RFC 1918)
  ["http://10.0.0.1/h", "10/8"],
  ["http://10.255.255.254/h", "10/8, last"],
  ["http://172.16.0.1/h", "172.16/12, first"],
  ["http://172.31.255.254/h", "172.16/12, last"],
  ["http://192.168.0.1/h", "192.168/16"],
  // Loopback
  ["http://127.0.0.1/h", "127/8"],
  ["http://127.255.255.254:8080/h", "127/8 with a port"],
  ["http://[::1]/h", "IPv6 loopback"],
  ["http://[0:0:0:0:0:0:0:1]/h", "IPv6 loopback, uncompressed"],
  ["http://localhost/h", "localhost"],
  ["http://localhost:3000/h", "localhost with a port"],
  ["http://hooks.localhost/h", "*.localhost"],
  ["http://a.b.LOCALHOST./h", "*.localhost, upper case, trailing dot"],
  // Link-local, cloud metadata included
  ["http://169.254.169.254/latest/meta-data/", "metadata service"],
  ["http://169.254.0.1/h", "169.254/16"],
  ["http://[fe80::1]/h", "fe80::/10"],
  ["http://[febf:ffff::1]/h", "fe80::/10, last block"],
  // Unique-local
  ["http://[fc00::1]/h", "fc00::/7"],
  ["http://[fdff:ffff::1]/h", "fc00::/7, fd half"],
  // Unspecified
  ["http://0.0.0.0/h", "0.0.0.0"],
  ["http://0/h", "0 (one number)"],
  ["http://[::]/h", "IPv6 unspecified"],
  // IPv4-mapped, -compatible, -translated, NAT64, 6to4, Teredo
  ["http://[::ffff:127.0.0.1]/h", "IPv4-mapped loopback"],
  ["http://[::ffff:7f00:1]/h", "IPv4-mapped loopback, hex"],
  ["http://[::FFFF:A9FE:A9FE]/h", "IPv4-mapped metadata, upper case"],
  ["http://[0:0:0:0:0:ffff:10.0.0.1]/h", "IPv4-mapped private, uncompressed"],
  ["http://[::127.0.0.1]/h", "IPv4-compatible"],
  ["http://[::ffff:0:127.0.0.1]/h", "IPv4-translated"],
  ["http://[64:ff9b::127.0.0.1]/h", "NAT64 of loopback"],
  ["http://[64:ff9b::a9fe:a9fe]/h", "NAT64 of metadata"],
  ["http://[64:ff9b:1::1]/h", "local-use NAT64"],
  ["http://[2002:7f00:1::1]/h", "6to4 of loopback"],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h", "Teredo"],
  // Outside global unicast (2000::/3), and special blocks inside it
  ["http://[::ffff:0:0:7f00:1]/h", "reserved ::/8, looks mapped"],
  ["http://[4000::1]/h", "unassigned"],
  ["http://[5f00::1]/h", "SRv6 SIDs"],
  ["http://[3fff::1]/h", "documentation 3fff::/20"],
  ["http://[2001:2::1]/h", "benchmarking 2001:2::/48"],
  // One number, octal, hex, mixed, short
  ["http://2130706433/h", "127.0.0.1 as one decimal number"],
  ["http://3232235521/h", "192.168.0.1 as one decimal number"],
  ["http://2852039166/h", "169.254.169.254 as one decimal number"],
  ["http://0177.0.0.1/h", "octal first part"],
  ["http://0177.0000.0000.0001/h", "octal, padded"],
  ["http://017700000001/h", "127.0.0.1 as one octal number"],
  ["http://012.0.0.1/h", "10.0.0.1 in octal"],
  ["http://0x7f.1/h", "hex, short"],
  ["http://0x7f000001/h", "127.0.0.1 as one hex number"],
  ["http://0X7F.0X00.0X00.0X01/h", "hex, upper case"],
  ["http://0xa9fea9fe/h", "metadata as one hex number"],
  ["http://127.0x0.1/h", "mixed radixes"],
  ["http://127.1/h", "short form"],
  ["http://127.0.1/h", "three parts"],
  ["http://10.1/h", "short private"],
  // Trailing dots, case, percent-encoding and compatibility characters
  ["http://127.0.0.1./h", "trailing dot"],
  ["http://0x7f.1./h", "hex with a trailing dot"],
  ["http://LOCALHOST/h", "upper case"],
  ["http://%6c%6f%63%61%6c%68%6f%73%74/h", "percent-encoded localhost"],
  ["http://%31%32%37.0.0.1/h", "percent-encoded 127"],
  ["http://127.0.0.1%2e/h", "percent-encoded trailing dot"],
];

/** Forms refused whatever the setting, for another reason than the address (400 validation_error). */
const REFUSED_OTHERWISE: ReadonlyArray<[string, string]> = [
  ["http://good.example@127.0.0.1/h", "userinfo before a private host"],
  ["http://127.0.0.1@hooks.example.test/h", "userinfo that looks like the host"],
  ["http://user:pw@[::1]/h", "credentials"],
  ["http://[fe80::1%25eth0]/h", "IPv6 zone id (not a URL)"],
  ["http://0x100000000/h", "an IPv4 number out of range"],
  ["http://256.0.0.1/h", "an octet out of range"],
  ["file:///etc/passwd", "not http(s)"],
  ["gopher://127.0.0.1:6379/_INFO", "not http(s)"],
  // Not ASCII, so not a URI: refused before URL parsing could fold them into 127.0.0.1 or localhost.
  ["http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/h", "full-width digits"],
  ["http://127\u30020\u30020\u30021/h", "ideographic full stops"],
  ["http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/h", "circled letters: localhost"],
];

describe("webhook URLs reaching a non-public address", () => {
  it("a localhost receiver refused says how to reach it: --allow-private-webhook-urls, or listen", async () => {
    const { create } = setup();
    for (const url of ["http://localhost:3000/webhooks", "http://127.0.0.1:3000/webhooks"]) {
      const message = (await create(url)).body.error?.message ?? "";
      expect(message).toContain("--allow-private-webhook-urls");
      expect(message).toContain("allowPrivateWebhookUrls");
      expect(message).toContain("medrecords listen --forward-to");
    }
  });

  it.each(NON_PUBLIC)("%s (%s) is refused on create and on change", async (url) => {
    const { create, patch, read } = setup();
    const refused = await create(url);
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe("invalid_request");
    expect(refused.body.error?.message).toMatch(/^url: Must be publicly reachable/);

    const created = await create(PUBLIC_URL);
    expect(created.status).toBe(201);
    const changed = await patch(created.body.id!, url);
    expect(changed.status).toBe(400);
    expect(changed.body.error?.code).toBe("invalid_request");
    expect((await read(created.body.id!)).url).toBe(PUBLIC_URL);
  });

  it.each(NON_PUBLIC)("%s (%s) is accepted with allowPrivateWebhookUrls", async (url) => {
    const { create, patch } = setup({ allowPrivateWebhookUrls: true });
    const created = await create(url);
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(url);
    const other = await create(PUBLIC_URL);
    expect((await patch(other.body.id!, url)).status).toBe(200);
  });

  it.each(REFUSED_OTHERWISE)("%s (%s) is refused as invalid, whatever the setting", async (url) => {
    for (const allowPrivateWebhookUrls of [false, true]) {
      const { create, patch } = setup({ allowPrivateWebhookUrls });
      const refused = await create(url);
      expect(refused.status).toBe(400);
      expect(refused.body.error?.code).toBe("validation_error");
      expect(refused.body.error?.message).toMatch(/^url: /);
      const created = await create(PUBLIC_URL);
      expect((await patch(created.body.id!, url)).body.error?.code).toBe("validation_error");
    }
  });

  it("public addresses, in any spelling, are accepted", async () => {
    const { create } = setup();
    for (const url of [
      "http://8.8.8.8/h",
      "http://134744072/h", // 8.8.8.8 as one number
      "http://0x8.0x8.0x8.0x8/h",
      "http://172.32.0.1/h", // just past 172.16/12
      "http://[2606:4700::1111]/h",
      "http://[64:ff9b::808:808]/h", // NAT64 of a public address
    ]) {
      expect((await create(url)).status, url).toBe(201);
    }
  });
});

describe("host names resolving to a non-public address", () => {
  const addresses: Record<string, readonly string[]> = {
    "internal.firm.example": ["10.0.0.5"],
    "metadata.firm.example": ["169.254.169.254"],
    "loopback6.firm.example": ["::1"],
    "mapped.firm.example": ["::ffff:127.0.0.1"],
    "ula.firm.example": ["fd00::1"],
    "mixed.firm.example": ["93.184.215.14", "192.168.1.1"],
    "garbage.firm.example": ["not-an-address"],
    "public.firm.example": ["93.184.215.14", "2606:4700::1111"],
  };
  function resolving() {
    const lookedUp: string[] = [];
    const lookupHost = async (host: string) => {
      lookedUp.push(host);
      return addresses[host] ?? [];
    };
    return { lookedUp, lookupHost };
  }

  it.each([
    ["https://internal.firm.example/h", "internal.firm.example"],
    ["https://metadata.firm.example/h", "metadata.firm.example"],
    ["https://loopback6.firm.example/h", "loopback6.firm.example"],
    ["https://mapped.firm.example/h", "mapped.firm.example"],
    ["https://ula.firm.example/h", "ula.firm.example"],
    ["https://mixed.firm.example/h", "mixed.firm.example"],
    ["https://garbage.firm.example/h", "garbage.firm.example"],
    ["https://INTERNAL.Firm.Example/h", "internal.firm.example"],
    ["https://internal.firm.example./h", "internal.firm.example"],
    ["https://%69nternal.firm.example/h", "internal.firm.example"],
  ])("%s is refused on create and on change (looked up as %s)", async (url, host) => {
    const { lookedUp, lookupHost } = resolving();
    const { create, patch } = setup({ lookupHost });
    const refused = await create(url);
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe("invalid_request");
    expect(refused.body.error?.message).toMatch(/resolves to/);
    expect(lookedUp).toEqual([host]);
    const created = await create("https://public.firm.example/h");
    expect(created.status).toBe(201);
    expect((await patch(created.body.id!, url)).body.error?.code).toBe("invalid_request");
  });

  it("with allowPrivateWebhookUrls, names are not even looked up", async () => {
    const { lookedUp, lookupHost } = resolving();
    const { create } = setup({ allowPrivateWebhookUrls: true, lookupHost });
    expect((await create("https://internal.firm.example/h")).status).toBe(201);
    expect(lookedUp).toEqual([]);
  });
});

describe("DNS rebinding: a name that turns private after creation", () => {
  async function rebound(allowPrivateWebhookUrls: boolean) {
    let answer: readonly string[] = ["93.184.215.14"];
    const sent: string[] = [];
    const { mock, create } = setup({
      delivery: "fetch",
      allowPrivateWebhookUrls,
      lookupHost: async () => answer,
      fetch: async (input) => {
        sent.push(String(input instanceof Request ? input.url : input));
        return new Response(null, { status: 204 });
      },
    });
    const created = await create("https://rebind.firm.example/h");
    expect(created.status).toBe(201);
    answer = ["127.0.0.1"];
    emitEventForTesting(mock, EVENT, {
      retrieval_request_id: "rr_1",
      case_id: null,
      public_updated_at: "2026-03-01T10:00:00.000Z",
    });
    await mock.deliveries.flush();
    return { sent, mock, id: created.body.id! };
  }

  it("is re-checked at delivery: nothing is sent, and the attempt fails", async () => {
    const { sent, mock, id } = await rebound(false);
    expect(sent).toEqual([]);
    const response = await mock.fetch(`${mock.baseUrl}/v2/webhooks/${id}/deliveries`, {
      headers: { authorization: `Bearer ${mock.apiKeys.create()}` },
    });
    const { results } = (await response.json()) as {
      results: Array<{ success: boolean; status_code: number | null; error: string | null }>;
    };
    expect(results).toEqual([
      expect.objectContaining({
        success: false,
        status_code: null,
        error: expect.stringMatching(
          /^Not sent: the host is a name that resolves to a loopback address/,
        ),
      }),
    ]);
  });

  it("is delivered as usual with allowPrivateWebhookUrls", async () => {
    const { sent } = await rebound(true);
    expect(sent).toEqual(["https://rebind.firm.example/h"]);
  });
});
