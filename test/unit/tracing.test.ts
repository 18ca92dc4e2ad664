/**
 * Tracing through `@opentelemetry/api` with an SDK's in-memory exporter registered: a task
 * submitted over HTTP with a `traceparent` header runs each attempt in a span of that trace,
 * through a retry to success, and an `http` task forwards the attempt's traceparent.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { httpTaskHandler, httpTaskPayloadSchema, outboundPolicy } from "../../src/mod.ts";
import { apiFixture } from "../helpers/api-app.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const exporter = new InMemorySpanExporter();

describe("tracing (W3C traceparent, OpenTelemetry)", () => {
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  after(() => {
    trace.disable();
    context.disable();
  });

  it("one trace from submit through a retry to success, each attempt a span", async () => {
    const seen: (string | null)[] = [];
    const f = await apiFixture({
      handlers: {
        flaky: (_p, ctx) => {
          seen.push(ctx.traceparent);
          if (ctx.attempt === 1) throw new Error("first try fails");
          return "ok";
        },
      },
    });
    try {
      const { body } = await f.call(
        "POST",
        "/skedulr/api/tasks",
        { type: "flaky", maxRetries: 1, backoff: { type: "fixed", delay: "1ms" } },
        { traceparent: `00-${TRACE}-${PARENT}-01` },
      );
      await f.until(body.id, "succeeded");
      assert.equal((await f.s.get(body.id))?.traceparent, `00-${TRACE}-${PARENT}-01`);
      const spans = exporter.getFinishedSpans()
        .filter((s) => s.attributes["skedulr.task.id"] === body.id)
        .sort((a, b) =>
          Number(a.attributes["skedulr.task.attempt"]) -
          Number(b.attributes["skedulr.task.attempt"])
        );
      assert.equal(spans.length, 2);
      for (const [i, s] of spans.entries()) {
        assert.equal(s.name, "flaky process");
        assert.equal(s.spanContext().traceId, TRACE, "the submitter's trace");
        assert.equal(s.parentSpanContext?.spanId, PARENT, "a child of the submitter's span");
        assert.equal(s.attributes["skedulr.task.attempt"], i + 1);
        assert.equal(s.attributes["skedulr.task.pool"], "default");
        // The handler forwards its own span's context.
        assert.equal(seen[i], `00-${TRACE}-${s.spanContext().spanId}-01`);
      }
      assert.equal(spans[0].status.code, 2, "the failed attempt's span is an error");
      assert.notEqual(spans[1].status.code, 2);
    } finally {
      await f.close();
    }
  });

  it("an http task sends its attempt's traceparent downstream", async () => {
    const got: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      got.push(req.headers.traceparent as string | undefined);
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const policy = outboundPolicy("127.0.0.1");
    const f = await apiFixture({ start: false });
    f.s.register("http", httpTaskHandler({ policy }), {
      payloadSchema: httpTaskPayloadSchema(policy),
    });
    await f.s.start();
    try {
      const { body } = await f.call("POST", "/skedulr/api/tasks", {
        type: "http",
        payload: { url },
        traceparent: `00-${TRACE}-${PARENT}-01`,
      });
      await f.until(body.id, "succeeded");
      const span = exporter.getFinishedSpans().find((s) =>
        s.attributes["skedulr.task.id"] === body.id
      );
      assert.deepEqual(got, [`00-${TRACE}-${span!.spanContext().spanId}-01`]);
    } finally {
      await f.close();
      server.close();
    }
  });

  it("refuses a malformed traceparent field; ignores a malformed header", async () => {
    const f = await apiFixture({ start: false });
    try {
      const bad = await f.call("POST", "/skedulr/api/tasks", { type: "t", traceparent: "00-xyz" });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.issues[0].path, "traceparent");
      const zeros = `00-${"0".repeat(32)}-${PARENT}-01`;
      assert.equal(
        (await f.call("POST", "/skedulr/api/tasks", { type: "t", traceparent: zeros }))
          .status,
        400,
      );
      const ok = await f.call("POST", "/skedulr/api/tasks", { type: "t" }, { traceparent: "junk" });
      assert.equal(ok.status, 201);
      assert.equal((await f.s.get(ok.body.id))?.traceparent, null);
    } finally {
      await f.close();
    }
  });
});
