/**
 * @module mutants/list-partitions — the mutants of the partitions' promises (issue 17): each
 * breaks one thing a partitioned deployment relies on, and names the tests that catch it.
 */
import type { Mutant } from "./list.ts";

const STORE = "test/unit/partitioned-storage.test.ts";

export const PARTITION_MUTANTS: Mutant[] = [
  {
    id: "claim-never-visits-partition-2",
    why: "claims visit every partition in turn: no partition starves",
    file: "src/storage/partitioned/claims.ts",
    find: "if (!this.#awake(turn, part, p.now)) continue;",
    replace: "if (part === 2 || !this.#awake(turn, part, p.now)) continue;",
    tests: [STORE],
    filter: "claims from every partition",
  },
  {
    id: "generated-id-without-partition",
    why: "an id the store makes names its partition, so a read of it is one call",
    file: "src/storage/partitioned/placement.ts",
    find:
      "tasks: tasks.map((t, i) => (t.generatedId ? { ...t, id: withPartition(t.id, parts[i]) } : t)),",
    replace: "tasks: [...tasks],",
    tests: [STORE],
    filter: "gives a store-made id its partition",
  },
  {
    id: "workflow-batch-split",
    why: "a workflow submitted in one batch lands in one partition (its cascade stays atomic)",
    file: "src/storage/partitioned/placement.ts",
    find: "if (j !== undefined) group.union(i, j);",
    replace: "if (j !== undefined) group.union(i, i);",
    tests: [STORE],
    filter: "keeps a workflow",
  },
  {
    id: "pool-limit-whole-in-every-partition",
    why: "a pool-wide limit holds across partitions: their shares sum to it",
    file: "src/storage/partitioned/partitioned-storage.ts",
    find: "globalConcurrency: g === null ? null : limitShare(g, k, n)",
    replace: "globalConcurrency: g",
    tests: [STORE],
    filter: "never runs more than a pool-wide limit",
  },
  {
    id: "custom-id-unchecked-elsewhere",
    why: "a custom id is unique across partitions (and shares its namespace with schedules)",
    file: "src/storage/partitioned/writes.ts",
    find: "await this.#customIdsFree(placed.tasks, placed.parts);",
    replace: "void placed;",
    tests: [STORE],
    filter: "keeps custom ids unique",
  },
  {
    id: "listing-cursor-skips-rows",
    why: "a merged listing's cursor resumes each partition after the rows its page took",
    file: "src/storage/partitioned/merge.ts",
    find: "if (taken[k] === 0) return place;",
    replace: 'if (taken[k] >= 0) return page.next === null ? "done" : { cursor: page.next };',
    tests: [STORE],
    filter: "lists newest first",
  },
  {
    id: "event-resume-ignores-other-partitions",
    why: "a resumed event stream starts every partition where the reader left it",
    file: "src/storage/partitioned/task-events.ts",
    find: "`${from.batches[k]}/${",
    replace: "`${from.batches[from.part]}/${",
    tests: [STORE],
    filter: "resumes task events",
  },
  {
    id: "duty-scans-partition-0-only",
    why: "the look-ahead scans visit every partition in turn (delayed work everywhere is armed)",
    file: "src/worker/due-duty.ts",
    find: "const part = this.#parts > 1 ? this.#nextScan++ % this.#parts : undefined;",
    replace: "const part = this.#parts > 1 ? 0 : undefined;",
    tests: ["test/unit/due-duty-parts.test.ts"],
  },
  {
    id: "settles-go-to-partition-0",
    why: "a running attempt is settled in the partition its claim token names",
    file: "src/storage/partitioned/writes.ts",
    find: "return { k, lease: { ...lease, token: lease.token.slice(0, at) } };",
    replace: "return { k: 0 * k, lease: { ...lease, token: lease.token.slice(0, at) } };",
    tests: [STORE],
    filter: "settles each running task in its own partition",
  },
  {
    id: "partition-count-unchecked",
    why: "a node started with another partition count than its deployment's is refused",
    file: "src/storage/redis/partition-count.ts",
    find: "if (found !== wanted) throw new PartitionCountError(found, wanted, ctx.prefix);",
    replace: "void found;",
    tests: ["test/unit/redis-partitions.test.ts"],
    filter: "refuses a node started with another partition count",
  },
  {
    id: "cluster-scripts-publish-broadcast",
    why: "on a Redis Cluster the scripts publish with SPUBLISH, which the shard's subscribers get",
    file: "src/storage/redis/script-runner.ts",
    find: "if (this.#sharded) text = shardedPublish(text);",
    replace: "void this.#sharded;",
    tests: ["./test/cluster/conformance.cluster.ts"],
    filter: "tells a task's life in order",
  },
];
