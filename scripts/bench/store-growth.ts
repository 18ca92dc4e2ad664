/**
 * @module store-growth bench — what a submit costs the embedded store as it fills: tasks
 * submitted one at a time to a Scheduler whose pools are paused, the process's CPU per
 * submit over each block of tasks, next to the same run on another checkout:
 *
 *   bun scripts/bench/store-growth.ts [--tasks 400000] [--block 100000] [--reps 3]
 *                                     [--base <dir>]
 *   deno run -A scripts/bench/store-growth.ts …   # the same on Deno
 *
 * Each measurement is a fresh process (`--child <root>`) that imports the store from that
 * checkout's src/, so `--base` compares the code in <dir> (e.g. `git archive <commit> | tar
 * -x -C <dir>`) in the same run, interleaved. What grows with the store is mostly the
 * garbage collector's: young collections rescan whatever old container a submit wrote to.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { arg, argv, median } from "./bench-args.ts";
import { childJson } from "./bench-child.ts";

const TASKS = Number(arg("tasks", "400000"));
const BLOCK = Number(arg("block", "100000"));
const REPS = Number(arg("reps", "3"));
const BASE = arg("base", "");
const HERE = resolve(fileURLToPath(new URL("../..", import.meta.url)));

if (argv.includes("--child")) await child(resolve(arg("child", HERE)));
else run();

/** One measurement: prints one JSON line of CPU µs per submit, per block. */
async function child(root: string): Promise<void> {
  const mod = await import(join(root, "src/mod.ts"));
  const s = new mod.Scheduler({
    storage: new mod.MemoryStorage(),
    pools: { default: 10 },
    logger: mod.silentLogger,
  });
  s.register("noop", () => {});
  await s.start();
  await s.pause();
  const blocks: number[] = [];
  for (let done = 0; done < TASKS; done += BLOCK) {
    const before = process.cpuUsage();
    for (let i = 0; i < BLOCK; i++) await s.submit({ type: "noop", payload: { n: 1 } });
    const used = process.cpuUsage(before);
    blocks.push((used.user + used.system) / BLOCK);
  }
  console.log(JSON.stringify({ blocks, rssMB: process.memoryUsage().rss / 2 ** 20 }));
  process.exit(0);
}

function measure(root: string): { blocks: number[]; rssMB: number } {
  const args = ["--child", root, "--tasks", `${TASKS}`, "--block", `${BLOCK}`];
  return childJson(fileURLToPath(import.meta.url), args, root);
}

function run(): void {
  const roots = BASE ? [["this", HERE], ["base", resolve(BASE)]] : [["this", HERE]];
  const runs = new Map<string, { blocks: number[]; rssMB: number }[]>();
  console.log(`store growth: ${TASKS} submits in blocks of ${BLOCK}, ${REPS} reps`);
  for (let r = 0; r < REPS; r++) {
    for (const [name, root] of roots) {
      const m = measure(root);
      (runs.get(name) ?? runs.set(name, []).get(name)!).push(m);
      const blocks = m.blocks.map((x) => x.toFixed(2)).join(" / ");
      console.log(`  rep ${r + 1} ${name.padEnd(4)} CPU µs a submit by block: ${blocks}`);
    }
  }
  const header = Array.from(
    { length: Math.ceil(TASKS / BLOCK) },
    (_, i) => `to ${(i + 1) * BLOCK}`,
  );
  console.log(`\n| checkout | ${header.join(" | ")} | all | RSS MB |`);
  console.log(`|---|${header.map(() => "---:").join("|")}|---:|---:|`);
  for (const [name, ms] of runs) {
    const cols = header.map((_, b) => median(ms.map((m) => m.blocks[b])).toFixed(2));
    const all = median(ms.map((m) => m.blocks.reduce((a, b) => a + b, 0) / m.blocks.length));
    const rss = median(ms.map((m) => m.rssMB));
    console.log(`| ${name} | ${cols.join(" | ")} | ${all.toFixed(2)} | ${rss.toFixed(0)} |`);
  }
}
