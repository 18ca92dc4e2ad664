/**
 * Durations of any size: clock timers chain past setTimeout's 2^31−1 ms limit (fire once,
 * never early, cancellable mid-chain), long timeouts and far delays behave on a real clock,
 * and absurd values are refused naming the field (ValidationError, 400, ConfigError).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { MAX_TIMER_MS, systemClock, timerFunctions, unrefEachLink } from "../../src/core/clock.ts";
import { MAX_DURATION_MS, parseDuration } from "../../src/core/duration.ts";
import { TimingWheel } from "../../src/core/timing-wheel.ts";
import { runtimeClock } from "../../src/adapters/runtime.ts";
import {
  httpTaskHandler,
  HttpTaskPayloadSchema,
  httpTaskPayloadSchema,
  MemoryStorage,
  outboundPolicy,
  Scheduler,
  silentLogger,
  ValidationError,
} from "../../src/mod.ts";
import { ConfigError, parseWorkerConfig } from "../../src/worker/config.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";
import { eventually, gate } from "../../scripts/tools/wait.ts";

const DAY = 86_400_000;

/** Host timers over the real ones that count links and know which are still pending. */
function trackedHost() {
  const pending = new Set<unknown>();
  const delays: number[] = [];
  return {
    pending,
    delays,
    host: {
      setTimeout: (fn: () => void, ms: number) => {
        delays.push(ms);
        const h = setTimeout(() => {
          pending.delete(h);
          fn();
        }, ms);
        pending.add(h);
        return h;
      },
      clearTimeout: (h: unknown) => {
        pending.delete(h);
        clearTimeout(h as number);
      },
    },
  };
}

describe("durations: chained timers", () => {
  it("a wait longer than the chunk chains links, fires once and never early", async () => {
    const t = trackedHost();
    const timers = timerFunctions(t.host, 20);
    let fired = 0;
    let firedAfter = 0;
    const started = performance.now();
    timers.setTimer(() => {
      fired++;
      firedAfter = performance.now() - started;
    }, 90);
    await eventually(() => fired > 0, "the chained timer to fire");
    assert.ok(firedAfter >= 90, `fired after ${firedAfter} ms, before 90`);
    assert.ok(t.delays.length >= 5, `only ${t.delays.length} links`);
    assert.ok(t.delays.every((d) => d <= 20), `a link over the chunk: ${t.delays}`);
    // No link left pending, so nothing can fire again.
    assert.equal(t.pending.size, 0);
    assert.equal(fired, 1);
  });

  it("clearTimer mid-chain cancels the whole chain; Infinity never fires", async () => {
    for (const ms of [10_000, Infinity]) {
      const t = trackedHost();
      const timers = timerFunctions(t.host, 10);
      let fired = false;
      const handle = timers.setTimer(() => (fired = true), ms);
      await eventually(() => t.delays.length >= 3, `three links of a ${ms} ms chain`);
      timers.clearTimer(handle);
      assert.equal(t.pending.size, 0, "a link is still pending");
      assert.equal(fired, false);
      timers.clearTimer(handle); // a second clear is harmless
    }
  });

  it("NaN throws; a negative delay means now", async () => {
    const timers = timerFunctions(trackedHost().host, 10);
    assert.throws(() => timers.setTimer(() => {}, NaN), /expected a delay in ms, got NaN/);
    let now = false;
    timers.setTimer(() => (now = true), -5);
    await eventually(() => now, "a negative delay to fire at once");
  });

  it("unref applies to every link of a chain, present and future", async () => {
    const t = trackedHost();
    const timers = timerFunctions(t.host, 10);
    const unrefed = new Set<unknown>();
    const handle = timers.setTimer(() => {}, 10_000);
    unrefEachLink(handle, (link) => unrefed.add(link));
    await eventually(() => t.delays.length >= 3, "three links");
    for (const link of t.pending) assert.ok(unrefed.has(link), "a pending link was not unref'd");
    assert.ok(unrefed.size >= 3);
    timers.clearTimer(handle);
    const short = timers.setTimer(() => {}, 5);
    unrefEachLink(short, (link) => unrefed.add(link));
    assert.ok(unrefed.has(short), "a single timer is unref'd itself");
  });

  it("the system and runtime clocks wait past 2^31−1 ms instead of firing at once", async () => {
    for (const clock of [systemClock, runtimeClock]) {
      let fired = false;
      const long = clock.setTimer(() => (fired = true), MAX_TIMER_MS + 1);
      clock.unrefTimer?.(long);
      let shortFired = false;
      clock.setTimer(() => (shortFired = true), 30);
      await eventually(() => shortFired, "a later short timer");
      assert.equal(fired, false, "the 2^31 ms timer fired early");
      clock.clearTimer(long);
    }
  });

  it("the timing wheel on the real clock holds an entry 30 days out", async () => {
    const wheel = new TimingWheel({ tickMs: 10, clock: systemClock, unref: true });
    wheel.start();
    try {
      let far = false;
      let near = false;
      wheel.schedule("far", Date.now() + 30 * DAY, () => (far = true));
      wheel.schedule("near", Date.now() + 30, () => (near = true));
      await eventually(() => near, "the near entry");
      assert.equal(far, false);
      assert.equal(wheel.has("far"), true);
    } finally {
      wheel.stop();
    }
  });
});

/** Waits (with a deadline) until task `id` is no longer queued or running. */
function finished(s: Scheduler, id: string, what: string) {
  return eventually(async () => {
    const x = await s.get(id);
    return x && !["queued", "running", "retrying"].includes(x.status) ? x : null;
  }, what);
}

function scheduler(): Scheduler {
  return new Scheduler({
    storage: new MemoryStorage(),
    logger: silentLogger,
    pools: { default: 2 },
    pollMs: 50,
  });
}

describe("durations: a scheduler on the real clock", () => {
  it('a task with timeout "25d" runs its ~100 ms handler to success', async () => {
    const s = scheduler();
    s.register("slow", async () => {
      await new Promise((r) => setTimeout(r, 100)); // the handler's work, not a wait
      return "done";
    });
    await s.start();
    try {
      const id = await s.submit({ type: "slow", timeout: "25d" });
      const t = await finished(s, id, "the task to finish");
      assert.equal(t.status, "succeeded", `ended ${t.status}: ${JSON.stringify(t.error)}`);
      assert.equal(t.result, "done");
      assert.equal(t.attempt, 1);
      assert.equal(t.timeoutMs, 25 * DAY);
    } finally {
      await s.shutdown({ timeoutMs: 1000 });
    }
  });

  it("a delay, runAt or every 30 days out stays scheduled; nothing fires early", async () => {
    const s = scheduler();
    const ran: string[] = [];
    s.register("far", (p: { via: string }) => void ran.push(p.via));
    s.register("now", () => "ok");
    await s.start();
    try {
      const delayed = await s.submit({ type: "far", payload: { via: "delay" }, delay: "30d" });
      const at = await s.submit({
        type: "far",
        payload: { via: "runAt" },
        runAt: Date.now() + 30 * DAY,
      });
      const schedule = await s.submit({ type: "far", payload: { via: "every" }, every: "30d" });
      assert.equal((await s.get(delayed))?.status, "scheduled");
      assert.equal((await s.get(at))?.status, "scheduled");
      // Let the worker do something else, past its start-up scans and a claim poll.
      await finished(s, await s.submit({ type: "now" }), "other work");
      await finished(s, await s.submit({ type: "now", delay: 50 }), "other delayed work");
      assert.deepEqual(ran, []);
      for (const id of [delayed, at]) {
        const t = await s.get(id);
        assert.equal(t?.status, "scheduled");
        assert.ok(t!.runAt! >= Date.now() + 29 * DAY);
      }
      const sched = await s.getSchedule(schedule);
      assert.ok(sched && sched.nextRunAt >= Date.now() + 29 * DAY);
    } finally {
      await s.shutdown({ timeoutMs: 1000 });
    }
  });
});

/** One day more than 100 years of 365.25 days. */
const TOO_LONG = "36526d";

describe("durations: absurd values are refused naming the field", () => {
  it("parseDuration caps at 100 years and refuses non-finite values", () => {
    assert.deepEqual(parseDuration("36525d"), { ms: MAX_DURATION_MS });
    assert.deepEqual(parseDuration("25d"), { ms: 25 * DAY });
    for (const bad of [TOO_LONG, "1e309ms", Infinity, NaN, -1, "9".repeat(400), 2 ** 60]) {
      assert.ok("error" in parseDuration(bad), `accepted ${String(bad)}`);
    }
    assert.match(
      (parseDuration(TOO_LONG) as { error: string }).error,
      /at most 100 years \(3155760000000 ms\), got "36526d"/,
    );
  });

  it("submit: a ValidationError naming each field", async () => {
    const s = scheduler();
    s.register("http", httpTaskHandler(), { payloadSchema: HttpTaskPayloadSchema });
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "x", timeout: "1e309ms" }, "timeout"],
      [{ type: "x", timeout: Infinity }, "timeout"],
      [{ type: "x", timeout: TOO_LONG }, "timeout"],
      [{ type: "x", delay: -1 }, "delay"],
      [{ type: "x", delay: TOO_LONG }, "delay"],
      [{ type: "x", delay: "9".repeat(400) }, "delay"],
      [{ type: "x", runAt: Date.now() + MAX_DURATION_MS + DAY }, "runAt"],
      [{ type: "x", runAt: "9999-12-31T00:00:00Z" }, "runAt"],
      [{ type: "x", every: 2 ** 60 }, "every"],
      [{ type: "x", backoff: { type: "fixed", delay: TOO_LONG } }, "backoff.delay"],
      [{ type: "x", backoff: { type: "exponential", base: TOO_LONG } }, "backoff.base"],
      [{ type: "x", backoff: { type: "exponential", base: "1s", max: NaN } }, "backoff.max"],
      [{ type: "http", payload: { url: "http://a.b/", timeout: TOO_LONG } }, "payload.timeout"],
      [{ type: "http", payload: { url: "http://a.b/", timeout: "1e309ms" } }, "payload.timeout"],
      [{ type: "http", payload: { url: "http://a.b/", timeout: 0 } }, "payload.timeout"],
    ];
    for (const [spec, field] of cases) {
      await assert.rejects(s.submit(spec as never), (e: unknown) => {
        assert.ok(e instanceof ValidationError, `${JSON.stringify(spec)}: ${e}`);
        assert.deepEqual(e.issues.map((i) => i.path), [field], JSON.stringify(spec));
        return true;
      });
    }
    assert.equal((await s.list({})).items.length, 0);
    assert.throws(() => s.register("y", () => {}, { timeout: TOO_LONG }), (e: unknown) => {
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /^timeout: expected at most 100 years/);
      return true;
    });
    // The largest values are accepted.
    await s.submit({ type: "x", delay: "36525d", timeout: "36525d" });
    await s.submit({ type: "http", payload: { url: "http://a.b/", timeout: "25d" } });
  });

  it("the HTTP API answers 400 naming the field, and stores nothing", async () => {
    const f = await apiFixture({ start: false });
    f.s.register("http", httpTaskHandler(), { payloadSchema: HttpTaskPayloadSchema });
    try {
      const T = "/skedulr/api/tasks";
      const cases: [string | object, string][] = [
        ['{"type":"x","timeout":1e309}', "timeout"],
        [{ type: "x", timeout: "1e309ms" }, "timeout"],
        [{ type: "x", delay: TOO_LONG }, "delay"],
        [{ type: "x", runAt: "9999-12-31T00:00:00Z" }, "runAt"],
        [{ type: "x", every: -5 }, "every"],
        [{ type: "http", payload: { url: "http://a.b/", timeout: TOO_LONG } }, "payload.timeout"],
      ];
      for (const [body, field] of cases) {
        const res = await f.call("POST", T, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, "invalid_request");
        const paths = res.body.error.issues.map((i: { path: string }) => i.path);
        assert.deepEqual(paths, [field], JSON.stringify(body));
      }
      assert.equal(await storedCount(f.s), 0);
      const ok = await f.call("POST", T, { type: "x", timeout: "25d" });
      assert.equal(ok.status, 201);
    } finally {
      await f.close();
    }
  });

  it("duration env vars: a ConfigError naming the variable", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ SKEDULR_LEASE_MS: String(MAX_DURATION_MS + 1) }, /SKEDULR_LEASE_MS: expected an integer/],
      [{ SKEDULR_LEASE_MS: "1e309" }, /SKEDULR_LEASE_MS: expected an integer/],
      [{ SKEDULR_SHUTDOWN_TIMEOUT: TOO_LONG }, /SKEDULR_SHUTDOWN_TIMEOUT: expected at most 100/],
      [{ SKEDULR_SHUTDOWN_TIMEOUT: "1e309ms" }, /SKEDULR_SHUTDOWN_TIMEOUT: expected ms/],
      [{ SKEDULR_STATUS_MS: String(2 ** 31) }, /SKEDULR_STATUS_MS: expected an integer/],
      [{ SKEDULR_STATUS_MS: "10s" }, /SKEDULR_STATUS_MS: expected an integer/],
    ];
    for (const [env, message] of cases) {
      assert.throws(() => parseWorkerConfig(env), (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.problems.join("\n"), message);
        return true;
      });
    }
    const c = parseWorkerConfig({
      SKEDULR_LEASE_MS: `${30 * DAY}`,
      SKEDULR_SHUTDOWN_TIMEOUT: "25d",
    });
    assert.deepEqual([c.leaseMs, c.shutdownTimeoutMs], [30 * DAY, 25 * DAY]);
  });
});

describe("durations: the http task type's payload.timeout", () => {
  async function server(hold: Promise<void>): Promise<{ url: string; server: Server }> {
    const server = createServer(async (req, res) => {
      for await (const _ of req) { /* drain */ }
      if (req.url === "/hold") await hold;
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("fine");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
  }

  it('"25d" lets a request finish; a short one times out the request', async () => {
    const release = gate();
    const { url, server: srv } = await server(release.promise);
    const s = scheduler();
    // The receiver is on 127.0.0.1, opened as SKEDULR_HTTP_ALLOW=127.0.0.1 would open it.
    const local = outboundPolicy("127.0.0.1");
    s.register("http", httpTaskHandler({ policy: local }), {
      payloadSchema: httpTaskPayloadSchema(local),
    });
    await s.start();
    try {
      const long = await s.submit({ type: "http", payload: { url: `${url}/ok`, timeout: "25d" } });
      const t = await finished(s, long, "the 25d request");
      assert.equal(t.status, "succeeded", JSON.stringify(t.error));
      assert.deepEqual(t.result, { status: 200, body: "fine", truncated: false });
      const short = await s.submit({ type: "http", payload: { url: `${url}/hold`, timeout: 50 } });
      const d = await finished(s, short, "the 50 ms request to time out");
      assert.equal(d.status, "dead");
      assert.match(JSON.stringify(d.error), /timed out after 50 ms/);
    } finally {
      release.open();
      await s.shutdown({ timeoutMs: 1000 });
      srv.closeAllConnections?.();
      await new Promise((r) => srv.close(r));
    }
  });
});
