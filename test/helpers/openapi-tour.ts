/**
 * @module openapi-tour — the source of a small TypeScript program that uses a client generated
 * from the OpenAPI document (`openapi-typescript` types + `openapi-fetch`) the way a user
 * would: it calls every operation, answers good and bad, and returns what it saw. The test
 * writes it beside the generated `api.d.ts`, type-checks it with tsc (request shapes against
 * the generated types), then imports and runs it against a live app.
 *
 * It is a string because it imports a file that exists only once the test has generated it.
 * The app it runs against registers `ok` (logs two lines and returns), `fail` (throws) and
 * `slow` (runs until cancelled), with pools `default` and `critical`.
 */

export const TOUR_SOURCE = String.raw`
import createClient from "openapi-fetch";
import type { paths } from "./api.d.ts";

/** One answer: the operation, its HTTP status, media type and parsed body. */
export interface Seen { op: string; status: number; type: string; body: unknown }

export interface TourOptions {
  fetch: (request: Request) => Promise<Response>;
  /** Bearer credentials: the admin token, and a read-only API key. */
  admin: string;
  reader: string;
}

type Answer = { response: Response; data?: unknown; error?: unknown };

export async function tour(o: TourOptions): Promise<Seen[]> {
  const client = (token?: string) => createClient<paths>({
    baseUrl: "http://localhost",
    fetch: o.fetch,
    headers: token ? { Authorization: "Bearer " + token } : {},
  });
  const api = client(o.admin);
  const seen: Seen[] = [];
  async function note<R extends Answer>(op: string, pending: Promise<R>): Promise<R> {
    const r = await pending;
    const type = (r.response.headers.get("content-type") ?? "").split(";")[0];
    seen.push({ op, status: r.response.status, type, body: r.data ?? r.error ?? null });
    return r;
  }
  async function until(id: string, status: string): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const { data } = await api.GET("/skedulr/api/tasks/{id}", { params: { path: { id } } });
      if (data?.status === status) return;
      if (Date.now() > deadline) throw new Error("task " + id + " never became " + status);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const submit = (body: paths["/skedulr/api/tasks"]["post"]["requestBody"]["content"]["application/json"]) =>
    note("submitTask", api.POST("/skedulr/api/tasks", { body }));

  const ok = (await submit({ type: "ok", payload: { n: 1 }, pool: "critical" })).data!.id;
  await submit({ type: "ok", id: "tour-same" });
  await submit({ type: "ok", id: "tour-same" });
  await submit({ type: "no-handler-anywhere" });
  await submit({ type: "" });
  const schedule = (await submit({ type: "ok", every: "1h" })).data!.id;
  await note("submitTaskBatch", api.POST("/skedulr/api/tasks/batch", {
    body: [{ type: "ok" }, { type: "ok", delay: "1h", backoff: { type: "fixed", delay: "1s" } }],
  }));
  const bad = (await submit({ type: "fail", maxRetries: 0 })).data!.id;
  const slow = (await submit({ type: "slow" })).data!.id;
  await until(ok, "succeeded");
  await until(bad, "dead");
  await until(slow, "running");

  const task = (id: string) => ({ params: { path: { id } } });
  await note("getTask", api.GET("/skedulr/api/tasks/{id}", task(ok)));
  await note("getTask", api.GET("/skedulr/api/tasks/{id}", task(bad)));
  await note("getTask", api.GET("/skedulr/api/tasks/{id}", task("no-such-task")));
  await note("waitTask", api.GET("/skedulr/api/tasks/{id}/wait", task(ok)));
  await note("waitTask", api.GET("/skedulr/api/tasks/{id}/wait", {
    params: { path: { id: ok }, query: { timeout: "2h" } },
  }));
  const events = await note("streamTaskEvents", api.GET("/skedulr/api/events", {
    parseAs: "stream",
    params: { query: { kind: "succeeded", lastEventId: "0/0" } },
  }));
  await (events.data as ReadableStream).cancel();
  seen[seen.length - 1].body = ""; // a stream, read no further: its schema is a string
  await note("streamTaskEvents", api.GET("/skedulr/api/events", {
    params: { query: { kind: "finished" } },
  }));
  await note("getTaskLogs", api.GET("/skedulr/api/tasks/{id}/logs", task(ok)));
  await note("getTaskLogs", api.GET("/skedulr/api/tasks/{id}/logs", {
    params: { path: { id: ok }, query: { attempt: 1, limit: 1 } },
  }));
  await note("getTaskLogs", api.GET("/skedulr/api/tasks/{id}/logs", {
    params: { path: { id: ok }, query: { limit: 0 } },
  }));
  await note("getTaskLogs", api.GET("/skedulr/api/tasks/{id}/logs", task("no-such-task")));
  await note("listTasks", api.GET("/skedulr/api/tasks", { params: { query: { limit: 50 } } }));
  await note("listTasks", api.GET("/skedulr/api/tasks", { params: { query: { limit: 0 } } }));
  await note("cancelTask", api.POST("/skedulr/api/tasks/{id}/cancel", { ...task(slow), body: { reason: "tour" } }));
  await note("cancelTask", api.POST("/skedulr/api/tasks/{id}/cancel", task(ok)));
  await note("resubmitTask", api.POST("/skedulr/api/tasks/{id}/resubmit", task(ok)));
  await note("resubmitTask", api.POST("/skedulr/api/tasks/{id}/resubmit", task(bad)));
  await until(bad, "dead");
  await note("resubmitTasks", api.POST("/skedulr/api/tasks/resubmit", { body: { status: "dead", type: "fail" } }));
  await until(bad, "dead");
  await note("listHistory", api.GET("/skedulr/api/history", { params: { query: { status: "dead" } } }));
  await note("listSchedules", api.GET("/skedulr/api/schedules"));
  const named = { params: { path: { id: "tour-daily" } } };
  await note("putSchedule", api.PUT("/skedulr/api/schedules/{id}", {
    ...named,
    body: { type: "ok", cron: "0 9 * * *", timezone: "Europe/Berlin", catchUp: "none" },
  }));
  await note("putSchedule", api.PUT("/skedulr/api/schedules/{id}", {
    ...named,
    body: { type: "ok", cron: "0 10 * * *" },
  }));
  await note("putSchedule", api.PUT("/skedulr/api/schedules/{id}", { ...named, body: { type: "ok" } }));
  await note("getSchedule", api.GET("/skedulr/api/schedules/{id}", named));
  await note("getSchedule", api.GET("/skedulr/api/schedules/{id}", task("no-such-schedule")));
  await note("pauseSchedule", api.POST("/skedulr/api/schedules/{id}/pause", named));
  await note("resumeSchedule", api.POST("/skedulr/api/schedules/{id}/resume", named));
  await note("triggerSchedule", api.POST("/skedulr/api/schedules/{id}/trigger", named));
  await note("triggerSchedule", api.POST("/skedulr/api/schedules/{id}/trigger", task("nope")));
  await note("deleteSchedule", api.DELETE("/skedulr/api/schedules/{id}", named));
  await note("deleteSchedule", api.DELETE("/skedulr/api/schedules/{id}", task(schedule)));
  await note("deleteSchedule", api.DELETE("/skedulr/api/schedules/{id}", task(schedule)));
  await note("listWorkers", api.GET("/skedulr/api/workers"));
  await note("getStats", api.GET("/skedulr/api/stats"));
  await note("pause", api.POST("/skedulr/api/pause", { body: { pool: "critical" } }));
  await note("resume", api.POST("/skedulr/api/resume", { body: {} }));
  const pool = (name: string) => ({ params: { path: { name } }, body: { concurrency: 3 } });
  await note("setPoolSize", api.POST("/skedulr/api/pools/{name}", pool("default")));
  await note("setPoolSize", api.POST("/skedulr/api/pools/{name}", pool("nowhere")));
  await note("getOpenApi", api.GET("/skedulr/api/openapi.json"));
  await note("getDocs", api.GET("/skedulr/api/docs", { parseAs: "text" }));
  await note("getHealth", api.GET("/skedulr/healthz"));
  await note("getMetrics", api.GET("/skedulr/metrics", { parseAs: "text" }));
  await note("login", client().POST("/skedulr/login", { body: { token: o.admin } }));
  await note("login", client().POST("/skedulr/login", { body: { token: "wrong" } }));
  await note("logout", client().POST("/skedulr/logout", { headers: { "Sec-Fetch-Site": "same-origin" } }));
  await note("listTasks", client().GET("/skedulr/api/tasks"));
  await note("pause", client(o.reader).POST("/skedulr/api/pause", { body: {} }));
  return seen;
}
`;

/**
 * The source of a module that assigns each answer, as a literal, to the generated type of
 * its operation, status and media type: tsc then refuses a missing required field, a wrong
 * type, an undocumented field (excess property check) or an undocumented status.
 */
export function answersSource(seen: { op: string; status: number; type: string; body: unknown }[]) {
  const lines = [
    'import type { operations } from "./api.d.ts";',
    'type Body<O extends keyof operations, S extends keyof operations[O]["responses"], M extends string> =',
    '  operations[O]["responses"][S] extends { content: infer C } ? M extends keyof C ? C[M] : never : never;',
  ];
  seen.forEach((s, i) => {
    lines.push(
      `// ${s.op} ${s.status}`,
      `export const a${i}: Body<"${s.op}", ${s.status}, "${s.type}"> = ${JSON.stringify(s.body)};`,
    );
  });
  return lines.join("\n") + "\n";
}
