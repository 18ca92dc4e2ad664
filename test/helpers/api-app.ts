/**
 * @module api-app — a real Scheduler on the embedded store behind `createApp`, driven with
 * `app.request()`: the fixture every `test/unit/api-*.test.ts` file uses.
 */
import { createApp, type CreateAppOptions } from "../../routes/app.ts";
import {
  type Handler,
  MemoryStorage,
  type MemoryStorageOptions,
  Scheduler,
  silentLogger,
  type TaskRecord,
  type TaskStatus,
} from "../../src/mod.ts";
import { eventually } from "../../scripts/tools/wait.ts";

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: any;
  text: string;
}

export interface ApiFixture {
  s: Scheduler;
  app: ReturnType<typeof createApp>;
  storage: MemoryStorage;
  /** Sends a request; a non-string `body` is sent as JSON with its Content-Type. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse>;
  /** Sends a request as given. */
  raw(path: string, init?: RequestInit): Promise<ApiResponse>;
  /** Waits (with a deadline) until task `id` has `status`, read through the API. */
  until(id: string, status: TaskStatus): Promise<TaskRecord>;
  close(): Promise<void>;
}

export interface FixtureOptions extends Partial<Omit<CreateAppOptions, "scheduler">> {
  /** Start pools and the wheel (default true when handlers are given). */
  start?: boolean;
  handlers?: Record<string, Handler>;
  pools?: Record<string, number>;
  storage?: MemoryStorageOptions;
}

async function read(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  const json = res.headers.get("content-type")?.includes("application/json");
  return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text, text };
}

export async function apiFixture(options: FixtureOptions = {}): Promise<ApiFixture> {
  const { start, handlers = {}, pools, storage: storageOptions, ...appOptions } = options;
  const storage = new MemoryStorage(storageOptions);
  const s = new Scheduler({
    storage,
    logger: silentLogger,
    pools: pools ?? { default: 4 },
    heartbeatMs: 50,
    pollMs: 50,
  });
  for (const [type, handler] of Object.entries(handlers)) s.register(type, handler);
  const started = start ?? Object.keys(handlers).length > 0;
  if (started) await s.start();
  const app = createApp({ scheduler: s, ...appOptions });
  const raw = async (path: string, init?: RequestInit) => read(await app.request(path, init));
  const call: ApiFixture["call"] = (method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    return raw(path, init);
  };
  return {
    s,
    app,
    storage,
    call,
    raw,
    until: (id, status) =>
      eventually(async () => {
        const res = await call("GET", `/skedulr/api/tasks/${id}`, undefined, authHeader(options));
        return res.status === 200 && res.body.status === status ? res.body as TaskRecord : null;
      }, `task ${id} to be ${status}`),
    close: async () => {
      if (started) await s.shutdown({ timeoutMs: 0 });
      await storage.close();
    },
  };
}

function authHeader(options: FixtureOptions): Record<string, string> {
  return options.token ? { authorization: `Bearer ${options.token}` } : {};
}

/** Every task in the store, read directly (to prove nothing was stored). */
export async function storedCount(s: Scheduler): Promise<number> {
  const page = await s.list({ limit: 1000 });
  return page.items.length;
}
