/**
 * @module tracing — each attempt's handler runs in an OpenTelemetry span that continues the
 * trace its task was submitted in (`traceparent`), through `@opentelemetry/api`: a no-op
 * until the application registers an SDK.
 */
import {
  context,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from "@opentelemetry/api";
import { formatTraceparent, parseTraceparent } from "../core/traceparent.ts";
import type { TaskRecord } from "../core/task.ts";
import type { Handler } from "./middleware.ts";

const tracer = () => trace.getTracer("skedulr");

/** The context a task's span starts in: its traceparent's, else the caller's. */
function parentContext(traceparent: string | null) {
  const parts = traceparent ? parseTraceparent(traceparent) : null;
  if (!parts) return context.active();
  const parent: SpanContext = {
    traceId: parts.traceId,
    spanId: parts.spanId,
    traceFlags: parts.flags & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return trace.setSpanContext(ROOT_CONTEXT, parent);
}

/**
 * The traceparent a handler forwards (an `http` task's request): its own span's, or the
 * task's when no SDK is registered (the downstream then continues the submitter's trace).
 */
export function currentTraceparent(task: Pick<TaskRecord, "traceparent">): string | null {
  const span = trace.getActiveSpan()?.spanContext();
  if (span && trace.isSpanContextValid(span)) {
    return formatTraceparent(span.traceId, span.spanId, span.traceFlags);
  }
  return task.traceparent;
}

/**
 * Whether an SDK is registered: without one every span is a no-op, and making one per attempt
 * (its options, a context, two promise steps) was a tenth of a no-op task's CPU. Another copy
 * of the API in the process may hold the provider: then spans are made, as before.
 */
function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) ||
    provider.getDelegateTracer("skedulr") !== undefined;
}

/**
 * `handler` run in a span named after the task's type, with its id, pool and attempt; the
 * handler itself while no SDK is registered (the task's traceparent is forwarded as is).
 */
export function traced(task: TaskRecord, handler: Handler): Handler {
  if (!tracing()) return handler;
  return (payload, ctx) =>
    tracer().startActiveSpan(
      `${task.type} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          "messaging.system": "skedulr",
          "messaging.operation.type": "process",
          "messaging.destination.name": task.pool,
          "skedulr.task.id": task.id,
          "skedulr.task.type": task.type,
          "skedulr.task.pool": task.pool,
          "skedulr.task.attempt": task.attempt,
        },
      },
      parentContext(task.traceparent),
      (span) =>
        Promise.resolve().then(() => handler(payload, ctx)).then(
          (result) => {
            span.end();
            return result;
          },
          (error) => {
            span.recordException(error instanceof Error ? error : String(error));
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: String(error?.message ?? error),
            });
            span.end();
            throw error;
          },
        ),
    );
}
