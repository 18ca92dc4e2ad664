/**
 * @module e2e-recorder — how benchmark handlers report a measurement (latency, lateness) to
 * the driver of scripts/bench/e2e.ts, identically for Skedulr and BullMQ workers.
 *
 * Samples are taken at handler start against a clock shared by every process on the host
 * (`performance.timeOrigin + performance.now()`: wall time with sub-millisecond resolution),
 * buffered, and pushed to one Redis list per flush (one RPUSH per event-loop turn), so
 * reporting adds about one command per claim batch rather than one per task, and none
 * before the sample is taken.
 */
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Returns `record(value)`, which queues one sample for the list `key` on `url`. */
export function recorder(url: string, key: string): (value: number) => void {
  let transport: ReturnType<typeof connectRedisTcp> | null = null;
  let buffer: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = buffer;
    buffer = [];
    transport ??= connectRedisTcp(url);
    transport.send(["RPUSH", key, ...batch]).catch((error) => {
      console.error(`bench recorder: RPUSH ${key} failed: ${(error as Error).message}`);
    });
  };
  return (value) => {
    buffer.push(value.toFixed(3));
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };
}
