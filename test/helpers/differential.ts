/**
 * @module differential — the knobs of the differential test (test/unit/redis-differential)
 * and its aids for finding where a disagreement starts. The committed default is fast (CI
 * runs it on every push: seeds 1-4, and 38, which met a claim's expiry queueing work ahead
 * of what it had read, 600 steps each); a hunt runs longer:
 *
 *   DIFF_SEEDS=1-40 DIFF_STEPS=1500 bun test --timeout 600000 test/unit/redis-differential.test.ts
 *
 * and a disagreement found at a checkpoint is narrowed down with `DIFF_CHECK_EVERY=1` (the
 * whole state compared after every step) and `DIFF_TRACE=1` (every call to the embedded
 * store, its arguments and its answer, printed with its step).
 */
import process from "node:process";

const env = (name: string) => process.env[name] || undefined;

/** Seeds as comma-separated numbers and `a-b` ranges: "1-4,9". */
function parseSeeds(text: string): number[] {
  return text.split(",").flatMap((part) => {
    const [from, to = from] = part.split("-").map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to) || to < from) {
      throw new Error(`DIFF_SEEDS: "${part}" is not a seed or a range a-b`);
    }
    return Array.from({ length: to - from + 1 }, (_, k) => from + k);
  });
}

export const DIFF = {
  seeds: parseSeeds(env("DIFF_SEEDS") ?? "1-4,38"),
  steps: Number(env("DIFF_STEPS") ?? 600),
  /** Steps between whole-state comparisons (events are compared after every step). */
  checkEvery: Number(env("DIFF_CHECK_EVERY") ?? 50),
  trace: env("DIFF_TRACE") === "1",
};

/** `store`, printing each call with the step it belongs to and its answer (DIFF_TRACE=1). */
export function traced<T extends object>(store: T, step: () => number): T {
  if (!DIFF.trace) return store;
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        console.log(`@${step()} ${String(prop)} ${JSON.stringify(args)}`);
        const result = value.apply(target, args);
        if (result instanceof Promise) {
          result.then((v) => console.log(`@${step()} => ${JSON.stringify(v)}`), () => {});
        }
        return result;
      };
    },
  });
}

/** The id of the first task whose record differs between two listings (for the message). */
export function firstDifferentTask(
  expected: readonly { id: string }[],
  actual: readonly { id: string }[],
): string | undefined {
  const theirs = new Map(actual.map((t) => [t.id, JSON.stringify(t)]));
  return expected.find((t) => theirs.get(t.id) !== JSON.stringify(t))?.id ??
    actual.find((t) => !expected.some((e) => e.id === t.id))?.id;
}
