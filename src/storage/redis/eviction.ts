/**
 * @module eviction — the start-up check that Redis never evicts keys.
 *
 * With any eviction policy but `noeviction`, Redis under memory pressure silently deletes
 * keys: a task body, a lease, a schedule. Peers then lose jobs or run them twice (Asynq
 * #799). A full Redis must refuse writes instead, which surfaces as an error on submit.
 */
import { SkedulrError } from "../../core/errors.ts";
import { pairsToObject, RedisCommandError, type RedisTransport } from "./transport.ts";

/** Reads `maxmemory-policy` (CONFIG GET, else INFO memory), or null when both are refused. */
export async function readEvictionPolicy(transport: RedisTransport): Promise<string | null> {
  try {
    const policy = pairsToObject(await transport.send(["CONFIG", "GET", "maxmemory-policy"]))[
      "maxmemory-policy"
    ];
    if (policy) return policy;
  } catch (error) {
    // Managed services often disable CONFIG; INFO usually still answers.
    if (!(error instanceof RedisCommandError)) throw error;
  }
  try {
    const info = String(await transport.send(["INFO", "memory"]));
    return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
  } catch (error) {
    if (!(error instanceof RedisCommandError)) throw error;
    return null;
  }
}

/** Throws unless Redis's eviction policy is `noeviction`. */
export async function checkEvictionPolicy(transport: RedisTransport): Promise<void> {
  const policy = await readEvictionPolicy(transport);
  if (policy === "noeviction") return;
  if (policy === null) {
    throw new SkedulrError(
      "storage",
      "Refusing to start: cannot read Redis's maxmemory-policy (CONFIG GET and INFO memory " +
        'were refused). Skedulr needs "noeviction"; if the server is configured so, pass ' +
        "checkEvictionPolicy: false.",
    );
  }
  throw new SkedulrError(
    "storage",
    `Refusing to start: Redis maxmemory-policy is "${policy}", but Skedulr needs "noeviction". ` +
      "With eviction, Redis silently deletes keys (tasks, leases, schedules) under memory " +
      "pressure. Run `CONFIG SET maxmemory-policy noeviction` and set it in redis.conf.",
  );
}
