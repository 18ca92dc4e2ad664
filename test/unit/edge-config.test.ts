/**
 * The edge deliverer's settings (SKEDULR_EDGE_*) within one Workers invocation's limits, the
 * submit rule of its pools (http tasks only, within its timeout) through a Scheduler, and
 * which writes wake it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ValidationError } from "../../src/core/errors.ts";
import { NEVER } from "../../src/core/catch-up.ts";
import { Scheduler } from "../../src/scheduler.ts";
import {
  EDGE_CONNECTIONS,
  edgeSpecRules,
  parseEdgeConfig,
  wakeWatch,
} from "../../src/worker/edge-config.ts";
import { silentLogger } from "../../src/worker/middleware.ts";

const config = (env: Record<string, string>) => {
  const parsed = parseEdgeConfig(env);
  assert.deepEqual(parsed.problems, []);
  return parsed.config!;
};

/** The problems of `env`, each cut to the variable it names. */
const named = (env: Record<string, string>) =>
  parseEdgeConfig(env).problems.map((p) => p.split(/[: ]/)[0]);

describe("SKEDULR_EDGE_* settings", () => {
  it("no pools: no deliverer, no problem", () => {
    assert.deepEqual(parseEdgeConfig({}), { config: null, problems: [] });
    assert.deepEqual(parseEdgeConfig({ SKEDULR_EDGE_POOLS: " " }), { config: null, problems: [] });
  });

  it("names pools with slots, bare names sharing five, and bounded defaults", () => {
    const c = config({ SKEDULR_EDGE_POOLS: "edge, callbacks" });
    assert.deepEqual([...c.pools], [["edge", 2], ["callbacks", 2]]);
    assert.deepEqual([c.leaseMs, c.timeoutMs, c.subrequests, c.runMs], [
      60_000,
      30_000,
      50,
      20_000,
    ]);
    assert.deepEqual([...config({ SKEDULR_EDGE_POOLS: "edge" }).pools], [["edge", 5]]);
    const sized = config({
      SKEDULR_EDGE_POOLS: "edge=4,callbacks=1",
      SKEDULR_EDGE_LEASE: "3s",
      SKEDULR_EDGE_TIMEOUT: "2s",
      SKEDULR_EDGE_SUBREQUESTS: "1000",
      SKEDULR_EDGE_RUN: "1m",
    });
    assert.deepEqual([...sized.pools], [["edge", 4], ["callbacks", 1]]);
    assert.deepEqual([sized.leaseMs, sized.timeoutMs, sized.subrequests, sized.runMs], [
      3_000,
      2_000,
      1_000,
      60_000,
    ]);
  });

  it("refuses what one invocation cannot do, naming the variable", () => {
    for (const pools of ["edge=0", `edge=${EDGE_CONNECTIONS + 1}`, "a b", "__x", "edge,edge"]) {
      assert.deepEqual(named({ SKEDULR_EDGE_POOLS: pools }), ["SKEDULR_EDGE_POOLS"], pools);
    }
    assert.match(
      parseEdgeConfig({ SKEDULR_EDGE_POOLS: "a=4,b=3" }).problems[0],
      /slots add up to 7; an invocation keeps at most 6 connections/,
    );
    const timeout = parseEdgeConfig({
      SKEDULR_EDGE_POOLS: "edge",
      SKEDULR_EDGE_LEASE: "10s",
      SKEDULR_EDGE_TIMEOUT: "10s",
    });
    assert.equal(timeout.config, null);
    assert.match(
      timeout.problems[0],
      /SKEDULR_EDGE_TIMEOUT \(10000 ms\) must be below SKEDULR_EDGE_LEASE/,
    );
    const bad = { SKEDULR_EDGE_POOLS: "edge" };
    assert.deepEqual(named({ ...bad, SKEDULR_EDGE_LEASE: "soon" }), ["SKEDULR_EDGE_LEASE"]);
    assert.deepEqual(named({ ...bad, SKEDULR_EDGE_RUN: "20m" }), ["SKEDULR_EDGE_RUN"]);
    for (const n of ["5", "abc", "2000000"]) {
      assert.deepEqual(named({ ...bad, SKEDULR_EDGE_SUBREQUESTS: n }), [
        "SKEDULR_EDGE_SUBREQUESTS",
      ]);
    }
  });
});

describe("the edge pools' submit rule", () => {
  const rules = edgeSpecRules(
    config({ SKEDULR_EDGE_POOLS: "default,callbacks", SKEDULR_EDGE_TIMEOUT: "5s" }),
  );
  const scheduler = new Scheduler({ pools: {}, logger: silentLogger, specRules: rules });
  const issues = async (specs: unknown[]) => {
    try {
      await scheduler.submitMany(specs);
      return [];
    } catch (error) {
      assert.ok(error instanceof ValidationError, String(error));
      return error.issues.map((i) => i.path);
    }
  };
  const http = { type: "http", payload: { url: "https://example.com/hook" } };

  it("refuses another type in an edge pool (the default pool included) and a callback task", async () => {
    assert.deepEqual(await issues([{ type: "echo" }]), ["type"]);
    assert.deepEqual(await issues([http, { type: "callback", pool: "callbacks" }]), ["[1].type"]);
    assert.deepEqual(
      await issues([{ type: "echo", pool: "resident" }]),
      [],
      "another pool: any type",
    );
    assert.deepEqual(await issues([http]), []);
    assert.deepEqual(
      await issues([{ type: "echo", every: "1m" }]),
      ["type"],
      "a schedule's runs too",
    );
  });

  it("refuses a timeout the edge cannot give, naming the field", async () => {
    assert.deepEqual(await issues([{ ...http, timeout: "6s" }]), ["timeout"]);
    const payload = { ...http.payload, timeout: 6_000 };
    assert.deepEqual(await issues([{ ...http, payload }]), ["payload.timeout"]);
    assert.deepEqual(await issues([{ ...http, timeout: "5s" }]), []);
  });
});

describe("what wakes the deliverer", () => {
  const c = config({ SKEDULR_EDGE_POOLS: "edge" });

  it("work queued in its pools now, delayed work at its time, the earliest of them", () => {
    const watch = wakeWatch(c, () => 1_000);
    assert.equal(watch.earliest(), null);
    watch.listener({ kind: "ready", pool: "resident" });
    watch.listener({ kind: "schedule", id: "s", nextRunAt: NEVER });
    assert.equal(watch.earliest(), null, "another pool's work and a schedule that never fires");
    watch.listener({ kind: "delayed", id: "a", runAt: 5_000 });
    watch.listener({ kind: "schedule", id: "s", nextRunAt: 4_000 });
    assert.equal(watch.earliest(), 4_000);
    watch.listener({ kind: "ready", pool: "edge" });
    assert.equal(watch.earliest(), 1_000);
  });
});
