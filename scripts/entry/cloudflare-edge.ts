/**
 * @module cloudflare-edge — how the Worker reaches its edge deliverer (the `Deliverer`
 * Durable Object, cloudflare-deliverer.ts): the bindings it needs, and the three things it
 * tells the deliverer, each one Durable Object request and no REST request:
 *
 * - `wake?at=<ms>`: a write made through this Worker queued or delayed work (a submit, a
 *   retry's resubmit, a schedule); the deliverer's alarm moves up to `at` if it was later.
 *   The times come from the store's own events of the write (RedisStorage delivers them to
 *   its listeners before the call returns; `wakeWatch` in src/worker/edge-config.ts), so
 *   nothing is read to learn them.
 * - `start`: the first request this Worker isolate serves; a deliverer that has not run
 *   since it was created, and has no alarm (alarms may not survive a restart), runs at once
 *   and re-arms itself from the store.
 * - `tick`: the cron trigger (every minute), the backstop for work that other nodes queued
 *   (a resident `serve` node, a resident worker's retry): the deliverer runs, reads what
 *   falls due next and arms its alarm for it.
 */

/** The Durable Object storage calls the deliverer uses. */
export interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

/** What the runtime gives a Durable Object. */
export interface DurableObjectStateLike {
  storage: AlarmStorage;
}

/** The `DELIVERER` binding (wrangler.toml `[[durable_objects.bindings]]`). */
export interface DelivererNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** What a Worker handler gets besides the request and env. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}

/** The deliverer of a key prefix: one per deployment (one Redis prefix). */
function deliverer(namespace: DelivererNamespace, prefix: string) {
  return namespace.get(namespace.idFromName(`skedulr:${prefix}`));
}

/** Sends one message to the deliverer; a failure is logged, the cron trigger covers it. */
export async function tellDeliverer(
  namespace: DelivererNamespace,
  prefix: string,
  message: "start" | "tick" | { wakeAt: number },
): Promise<void> {
  const path = typeof message === "string" ? message : `wake?at=${Math.round(message.wakeAt)}`;
  try {
    const response = await deliverer(namespace, prefix).fetch(`https://deliverer/${path}`);
    await response.body?.cancel();
  } catch (error) {
    console.error(`skedulr: telling the edge deliverer ${path} failed:`, error);
  }
}
