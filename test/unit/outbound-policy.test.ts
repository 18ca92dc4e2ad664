/**
 * The outbound policy of the `http` task type as a pure function (src/core/outbound-policy.ts):
 * every internal target of the SSRF finding is refused however it is written, each opens
 * when listed in SKEDULR_HTTP_ALLOW (host or CIDR), resolved addresses are checked the same
 * way, and a bad allow list is refused naming the variable.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  classifyAddress,
  DEFAULT_OUTBOUND_POLICY,
  outboundPolicy,
  parseAddress,
} from "../../src/core/outbound-policy.ts";
import { ConfigError, parseWorkerConfig } from "../../src/mod.ts";

const url = (host: string) => new URL(`http://${host}:8080/hook`);

/** The finding's targets, as written in a URL, and what each is. */
const FINDINGS: [string, RegExp][] = [
  ["127.0.0.1", /^127\.0\.0\.1 is a loopback address$/],
  ["localhost", /^localhost is a loopback name$/],
  ["0.0.0.0", /^0\.0\.0\.0 is an unspecified/],
  ["2130706433", /^127\.0\.0\.1 is a loopback address$/],
  ["0x7f.1", /^127\.0\.0\.1 is a loopback address$/],
  ["0177.0.0.1", /^127\.0\.0\.1 is a loopback address$/],
  ["[::1]", /^::1 is a loopback address$/],
  ["[::ffff:127.0.0.1]", /IPv4-mapped address of 127\.0\.0\.1, a loopback address$/],
  ["169.254.169.254", /link-local address \(cloud metadata\)$/],
  ["10.0.0.1", /^10\.0\.0\.1 is a private address$/],
  ["100.64.0.1", /shared \(CGNAT\)/],
  ["[fc00::1]", /^fc00::1 is a unique-local address$/],
  ["224.0.0.1", /^224\.0\.0\.1 is a multicast address$/],
];

/** More forms and ranges: other spellings, embeddings and reserved space. */
const MORE: string[] = [
  "127.1",
  "0x7f000001",
  "0",
  "127.0.0.1.",
  "LOCALHOST.",
  "api.localhost",
  "[::]",
  "[0:0:0:0:0:ffff:7f00:1]",
  "[::ffff:a00:1]",
  "[64:ff9b::a9fe:a9fe]",
  "[2002:c0a8:101::1]",
  "[fe80::1]",
  "[fd00:ec2::254]",
  "[ff02::1]",
  "[2001:db8::1]",
  "[::127.0.0.1]",
  "172.16.0.1",
  "192.168.1.1",
  "198.18.0.1",
  "255.255.255.255",
  "240.0.0.1",
  "192.0.2.1",
];

describe("outbound policy: default", () => {
  it("refuses every target of the finding, naming what it is", () => {
    for (const [host, why] of FINDINGS) {
      const refused = DEFAULT_OUTBOUND_POLICY.checkUrl(url(host));
      assert.ok(refused, `${host} was allowed`);
      assert.match(refused, why, host);
    }
  });

  it("refuses other spellings, IPv6 embeddings and reserved ranges", () => {
    for (const host of MORE) {
      assert.ok(DEFAULT_OUTBOUND_POLICY.checkUrl(url(host)), `${host} was allowed`);
    }
  });

  it("allows public addresses and leaves names to the resolved check", () => {
    for (const host of ["8.8.8.8", "[2606:4700:4700::1111]", "[::ffff:8.8.8.8]", "example.com"]) {
      assert.equal(DEFAULT_OUTBOUND_POLICY.checkUrl(url(host)), null, host);
    }
    assert.equal(DEFAULT_OUTBOUND_POLICY.checkUrl(url("172.32.0.1")), null, "just past 172.16/12");
  });

  it("checks each address a name resolves to, in any text form", () => {
    const p = DEFAULT_OUTBOUND_POLICY;
    assert.equal(p.checkResolved("hooks.example", "93.184.215.14"), null);
    assert.match(
      p.checkResolved("rebind.test", "127.0.0.1")!,
      /^rebind\.test resolves to 127\.0\.0\.1, a loopback address$/,
    );
    assert.match(p.checkResolved("x.test", "::ffff:169.254.169.254")!, /cloud metadata/);
    assert.match(p.checkResolved("x.test", "fe80::1%eth0")!, /link-local/);
    assert.match(p.checkResolved("x.test", "0:0:0:0:0:0:0:1")!, /loopback/);
    assert.match(p.checkResolved("x.test", "not-an-address")!, /not an address/);
  });

  it("parses addresses as the URL parser does", () => {
    assert.deepEqual([...parseAddress("0x7f.1")!], [127, 0, 0, 1]);
    assert.deepEqual([...parseAddress("2130706433")!], [127, 0, 0, 1]);
    assert.equal(parseAddress("[::1]")!.length, 16);
    assert.equal(parseAddress("example.com"), null);
    assert.equal(parseAddress("1.2.3.4.5"), null);
    assert.equal(parseAddress("evil.com@10.0.0.1"), null);
    assert.equal(classifyAddress(parseAddress("1.1.1.1")!), null);
  });
});

describe("outbound policy: SKEDULR_HTTP_ALLOW", () => {
  it("opens each target when its address or a CIDR holding it is listed", () => {
    const p = outboundPolicy("127.0.0.0/8, ::1, 0.0.0.0, 169.254.169.254/32 10.0.0.0/8");
    for (
      const host of [
        "127.0.0.1",
        "2130706433",
        "0x7f.1",
        "0177.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "0.0.0.0",
        "169.254.169.254",
        "10.0.0.1",
        "localhost",
      ]
    ) {
      assert.equal(p.checkUrl(url(host)), null, host);
    }
    assert.match(p.checkUrl(url("100.64.0.1"))!, /CGNAT/, "only what is listed");
    assert.equal(p.checkResolved("rebind.test", "127.0.0.1"), null);
    assert.match(p.checkResolved("rebind.test", "192.168.0.1")!, /private/);
  });

  it("opens a listed host name (and *.suffix) whatever it resolves to", () => {
    const p = outboundPolicy(["localhost", "hooks.internal.", "*.svc.cluster.local", "fc00::/7"]);
    assert.equal(p.checkUrl(url("localhost")), null);
    assert.equal(p.checkResolved("localhost", "127.0.0.1"), null);
    assert.equal(p.checkResolved("HOOKS.internal", "10.1.2.3"), null);
    assert.equal(p.checkResolved("api.svc.cluster.local", "10.96.0.1"), null);
    assert.match(p.checkResolved("svc.cluster.local", "10.96.0.1")!, /private/, "subdomains only");
    assert.match(p.checkResolved("other.test", "127.0.0.1")!, /loopback/);
    assert.equal(p.checkUrl(url("[fc00::1]")), null);
    assert.deepEqual(p.allow, ["localhost", "hooks.internal.", "*.svc.cluster.local", "fc00::/7"]);
  });

  it("refuses a bad entry, naming the variable and the entry", () => {
    for (const bad of ["10.0.0.0/33", "::1/129", "999.1.1.1", "host:8080", "*", "http://x/"]) {
      assert.throws(() => outboundPolicy(`127.0.0.1,${bad}`), (e: unknown) => {
        assert.ok(e instanceof RangeError);
        assert.match(e.message, /^SKEDULR_HTTP_ALLOW: /);
        assert.ok(e.message.includes(JSON.stringify(bad)), e.message);
        return true;
      });
    }
  });

  it("is read from the environment, and a bad value stops start-up", () => {
    const c = parseWorkerConfig({ SKEDULR_HTTP_ALLOW: "127.0.0.1, 10.0.0.0/8" });
    assert.deepEqual(c.httpAllow, ["127.0.0.1", "10.0.0.0/8"]);
    assert.deepEqual(parseWorkerConfig({}).httpAllow, []);
    assert.throws(() => parseWorkerConfig({ SKEDULR_HTTP_ALLOW: "10.0.0.0/99" }), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /SKEDULR_HTTP_ALLOW: .*"10\.0\.0\.0\/99"/);
      return true;
    });
  });
});
