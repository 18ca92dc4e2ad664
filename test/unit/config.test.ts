/**
 * Worker configuration from the environment: defaults, parsing, and errors naming the variable.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, parseWorkerConfig, workerPools } from "../../src/worker/config.ts";

describe("worker configuration", () => {
  it("defaults to the embedded store, pools default=10 and critical=4, port 8080", () => {
    const c = parseWorkerConfig({});
    assert.equal(c.redisUrl, null);
    assert.deepEqual(c.pools, { default: 10, critical: 4 });
    assert.equal(c.port, 8080);
    assert.equal(c.leaseMs, null);
    assert.equal(c.token, null);
    assert.equal(c.shutdownTimeoutMs, 30_000);
  });

  it("parses pools, Redis URL, lease, port and shutdown timeout", () => {
    const c = parseWorkerConfig({
      SKEDULR_POOLS: "default=10, critical=4,background=0",
      REDIS_URL: "redis://:secret@127.0.0.1:6380/2",
      SKEDULR_LEASE_MS: "5000",
      PORT: "9090",
      SKEDULR_SHUTDOWN_TIMEOUT: "10s",
    });
    assert.deepEqual(c.pools, { default: 10, critical: 4, background: 0 });
    assert.equal(c.redisUrl, "redis://:secret@127.0.0.1:6380/2");
    assert.equal(c.leaseMs, 5000);
    assert.equal(c.port, 9090);
    assert.equal(c.shutdownTimeoutMs, 10_000);
  });

  it("names each bad variable and the problem", () => {
    assert.throws(
      () =>
        parseWorkerConfig({
          REDIS_URL: "localhost:6379",
          SKEDULR_POOLS: "default=ten",
          SKEDULR_LEASE_MS: "-5",
          PORT: "99999",
          SKEDULR_TOKEN: "short",
        }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        const text = e.problems.join("\n");
        assert.match(text, /REDIS_URL: expected redis:\/\/host:port.*"localhost:6379"/);
        assert.match(text, /SKEDULR_POOLS: expected name=size pairs.*"default=ten"/);
        assert.match(text, /SKEDULR_LEASE_MS: expected an integer/);
        assert.match(text, /PORT: expected an integer 0\.\.65535, got "99999"/);
        assert.match(text, /SKEDULR_TOKEN: use at least 16 characters/);
        return true;
      },
    );
    assert.throws(() => parseWorkerConfig({ UPSTASH_REDIS_REST_URL: "https://x" }), /set together/);
  });

  it("runs the callback pool (SKEDULR_CALLBACK_POOL) with 2 slots unless SKEDULR_POOLS sizes it", () => {
    const c = parseWorkerConfig({});
    assert.equal(c.callbackPool, "callbacks");
    assert.deepEqual(workerPools(c), { default: 10, critical: 4, callbacks: 2 });
    const named = parseWorkerConfig({ SKEDULR_CALLBACK_POOL: "hooks", SKEDULR_POOLS: "a=1" });
    assert.deepEqual(workerPools(named), { a: 1, hooks: 2 });
    const sized = parseWorkerConfig({ SKEDULR_POOLS: "default=3,callbacks=0" });
    assert.deepEqual(workerPools(sized), { default: 3, callbacks: 0 }, "0: this worker runs none");
    assert.throws(
      () => parseWorkerConfig({ SKEDULR_CALLBACK_POOL: "__proto__" }),
      /SKEDULR_CALLBACK_POOL: letters, digits/,
    );
  });

  it("reads cluster-wide pool limits after a pool's size in SKEDULR_POOLS", () => {
    const c = parseWorkerConfig({
      SKEDULR_POOLS: "emails=10:global=20:rate=100/1s,critical=4,q:x=2:rate=5/500ms",
    });
    assert.deepEqual(c.pools, { emails: 10, critical: 4, "q:x": 2 });
    assert.deepEqual(c.poolLimits, {
      emails: { globalConcurrency: 20, rateLimit: { max: 100, per: 1000 } },
      "q:x": { rateLimit: { max: 5, per: 500 } },
    });
    assert.deepEqual(parseWorkerConfig({}).poolLimits, {});
  });

  it("names SKEDULR_POOLS, the pool and the reason for a bad limit", () => {
    const cases: [string, RegExp][] = [
      [
        "emails=10:global=0",
        /SKEDULR_POOLS: pool emails: globalConcurrency expected an integer 1\.\./,
      ],
      [
        "emails=10:rate=0/1s",
        /SKEDULR_POOLS: pool emails: rateLimit\.max expected an integer 1\.\./,
      ],
      [
        "emails=10:rate=5/soon",
        /SKEDULR_POOLS: pool emails: rateLimit\.per expected ms or a duration/,
      ],
      ["emails=10:rate=5/0ms", /SKEDULR_POOLS: pool emails: rateLimit\.per expected 1ms to 1d/],
      [
        "emails=10:burst=3",
        /SKEDULR_POOLS: pool emails: expected options global=n and rate=n\/duration.*"burst=3"/,
      ],
      ["emails=10:global=2:global=3", /SKEDULR_POOLS: pool emails: expected options.*"global=3"/],
      ["emails=10:rate=5", /SKEDULR_POOLS: pool emails: expected options.*"rate=5"/],
    ];
    for (const [spec, message] of cases) {
      assert.throws(() => parseWorkerConfig({ SKEDULR_POOLS: spec }), (e: unknown) => {
        assert.ok(e instanceof ConfigError, spec);
        assert.match(e.problems.join("\n"), message, spec);
        return true;
      });
    }
  });

  it("reads SKEDULR_DEMO and SKEDULR_STATUS_MS like every other variable", () => {
    assert.equal(parseWorkerConfig({}).demo, true, "the demo runs on the embedded store");
    assert.equal(parseWorkerConfig({ REDIS_URL: "redis://h:1" }).demo, false);
    assert.equal(parseWorkerConfig({ REDIS_URL: "redis://h:1", SKEDULR_DEMO: "1" }).demo, true);
    assert.equal(parseWorkerConfig({}).statusMs, 10_000);
    assert.equal(parseWorkerConfig({ SKEDULR_STATUS_MS: "2500" }).statusMs, 2_500);
    for (
      const [env, problem] of [
        [{ SKEDULR_DEMO: "yes" }, /SKEDULR_DEMO: expected 1 or 0, got "yes"/],
        [{ SKEDULR_STATUS_MS: "10s" }, /SKEDULR_STATUS_MS: expected an integer/],
      ] as const
    ) {
      assert.throws(() => parseWorkerConfig(env), problem);
    }
  });
  it("reads partitions and a Redis Cluster's nodes, naming each bad value", () => {
    const c = parseWorkerConfig({
      REDIS_CLUSTER_NODES: "10.0.0.1:7000, 10.0.0.2:7000,redis://:pw@10.0.0.3:7000",
      SKEDULR_PARTITIONS: "3",
    });
    assert.equal(c.partitions, 3);
    assert.equal(c.clusterNodes, "10.0.0.1:7000, 10.0.0.2:7000,redis://:pw@10.0.0.3:7000");
    assert.equal(parseWorkerConfig({}).partitions, 1, "one partition by default");
    const problems = (env: Record<string, string>) => {
      try {
        parseWorkerConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    assert.match(
      problems({ SKEDULR_PARTITIONS: "0" })[0],
      /^SKEDULR_PARTITIONS: expected an integer 1\.\.64, got "0"/,
    );
    assert.match(
      problems({ REDIS_URL: "redis://r:6379", SKEDULR_PARTITIONS: "65" })[0],
      /SKEDULR_PARTITIONS: .*"65"/,
    );
    assert.match(
      problems({ REDIS_CLUSTER_NODES: "10.0.0.1" })[0],
      /^REDIS_CLUSTER_NODES: .*"10.0.0.1"/,
    );
    assert.match(
      problems({ REDIS_CLUSTER_NODES: "a:1", REDIS_URL: "redis://b:2" })[0],
      /REDIS_CLUSTER_NODES and REDIS_URL are both set/,
    );
    assert.match(problems({ SKEDULR_PARTITIONS: "2" })[0], /embedded store has one partition/);
  });

  it("reads per-type history shares from SKEDULR_HISTORY, naming a bad pair", () => {
    assert.deepEqual(parseWorkerConfig({}).history, {});
    assert.deepEqual(parseWorkerConfig({ SKEDULR_HISTORY: "ping=0, emails=0.1,http=1" }).history, {
      ping: 0,
      emails: 0.1,
      http: 1,
    });
    for (const bad of ["ping=2", "ping", "ping=-0.5", "=0.5"]) {
      assert.throws(
        () => parseWorkerConfig({ SKEDULR_HISTORY: bad }),
        (e: ConfigError) =>
          e.problems.length === 1 &&
          e.problems[0].startsWith("SKEDULR_HISTORY: expected type=share pairs") &&
          e.problems[0].endsWith(JSON.stringify(bad)),
      );
    }
  });

  it("reads SKEDULR_EXACT_DUE as on, off or a grid of whole ms up to the tick", () => {
    assert.equal(parseWorkerConfig({}).exactDue, true);
    assert.equal(parseWorkerConfig({ SKEDULR_EXACT_DUE: "off" }).exactDue, false);
    assert.equal(parseWorkerConfig({ SKEDULR_EXACT_DUE: "5ms" }).exactDue, 5);
    for (const bad of ["11ms", "0", "1s", "soon"]) {
      assert.throws(
        () => parseWorkerConfig({ SKEDULR_EXACT_DUE: bad }),
        (e: ConfigError) =>
          e.problems.length === 1 &&
          e.problems[0] ===
            `SKEDULR_EXACT_DUE: expected on, off or a grid from 1ms to 10ms, got ${
              JSON.stringify(bad)
            }`,
      );
    }
  });
});
