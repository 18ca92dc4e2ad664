/**
 * @module traceparent — W3C Trace Context's `traceparent` header
 * (https://www.w3.org/TR/trace-context/#traceparent-header): version 00, a trace id and a
 * parent span id that are not all zeros, and the trace flags.
 */

const FORMAT = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;

/** The parts of a valid traceparent, or null. */
export function parseTraceparent(
  value: string,
): { traceId: string; spanId: string; flags: number } | null {
  const m = FORMAT.exec(value);
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return null;
  return { traceId: m[1], spanId: m[2], flags: parseInt(m[3], 16) };
}

/** Whether `value` is a valid traceparent. */
export function isTraceparent(value: string): boolean {
  return parseTraceparent(value) !== null;
}

/** The traceparent of a span context. */
export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${flags.toString(16).padStart(2, "0")}`;
}
