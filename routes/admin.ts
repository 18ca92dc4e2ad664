/**
 * @module admin — schedules, workers, stats, pause/resume, pool sizes and cluster-wide
 * limits, and history under `/skedulr/api`.
 */
import type { Hono, MiddlewareHandler } from "hono";
import {
  isName,
  NAME_RULE,
  NEXT_RUNS_LISTED,
  nextRuns,
  NotFoundError,
  parsePoolLimits,
  type Scheduler,
  type ScheduleRecord,
  ValidationError,
} from "../src/mod.ts";
import { requiredBody, validate } from "./body.ts";
import type { SkedulrEnv } from "./env.ts";
import { parseListQuery, PauseSchema, PoolSizeSchema } from "./schemas.ts";
import { ApiError } from "./errors.ts";
import { role } from "./roles.ts";

/** A schedule id from the path, or a 400 naming it. */
function scheduleId(id: string): string {
  if (isName(id)) return id;
  throw new ApiError("invalid_request", `Invalid schedule id ${JSON.stringify(id)}`, [{
    path: "id",
    message: NAME_RULE,
  }]);
}

/** A schedule as the API answers it: the record and its next run times. */
function scheduleView(s: ScheduleRecord) {
  return { ...s, nextRuns: s.paused ? [] : nextRuns(s, NEXT_RUNS_LISTED) };
}

/** Registers the admin routes on the `/skedulr/api` app. */
export function adminRoutes(
  api: Hono<SkedulrEnv>,
  scheduler: Scheduler,
  body: MiddlewareHandler<SkedulrEnv>,
): void {
  api.get(
    "/schedules",
    role("read"),
    async (c) => c.json({ schedules: await scheduler.listSchedules() }),
  );

  api.get("/schedules/:id", role("read"), async (c) => {
    const id = scheduleId(c.req.param("id"));
    const s = await scheduler.getSchedule(id);
    if (!s) throw new NotFoundError("Schedule", id);
    return c.json(scheduleView(s));
  });

  // Creates or replaces: the body is a task spec with `every` or `cron` (id: the path's).
  api.put("/schedules/:id", role("admin"), body, async (c) => {
    const id = scheduleId(c.req.param("id"));
    const spec = requiredBody(c.get("body"), "a schedule spec");
    const { schedule, created } = await scheduler.putSchedule(id, spec);
    if (created) c.header("Location", `/skedulr/api/schedules/${encodeURIComponent(id)}`);
    return c.json(scheduleView(schedule), created ? 201 : 200);
  });

  for (const action of ["pause", "resume"] as const) {
    api.post(`/schedules/:id/${action}`, role("admin"), async (c) => {
      const id = scheduleId(c.req.param("id"));
      const s = action === "pause"
        ? await scheduler.pauseSchedule(id)
        : await scheduler.resumeSchedule(id);
      return c.json(scheduleView(s));
    });
  }

  // One run now, outside the cadence: a submit of the schedule's template.
  api.post("/schedules/:id/trigger", role("submit"), async (c) => {
    const { id: taskId } = await scheduler.triggerSchedule(scheduleId(c.req.param("id")));
    c.header("Location", `/skedulr/api/tasks/${encodeURIComponent(taskId)}`);
    return c.json({ id: taskId, status: "queued" }, 201);
  });

  api.delete("/schedules/:id", role("admin"), async (c) => {
    const id = c.req.param("id");
    // Not `scheduler.cancel`: that would cancel a *task* with this id.
    if (!(await scheduler.removeSchedule(id))) throw new NotFoundError("Schedule", id);
    return c.json({ id, status: "deleted" });
  });

  api.get("/workers", role("read"), async (c) => c.json({ workers: await scheduler.workers() }));

  api.get("/stats", role("read"), async (c) => c.json(await scheduler.stats()));

  for (const action of ["pause", "resume"] as const) {
    api.post(`/${action}`, role("admin"), body, async (c) => {
      const { pool } = validate(PauseSchema, c.get("body") ?? {}, `${action} request`);
      await scheduler[action](pool);
      return c.json({ pool: pool ?? null, paused: action === "pause" });
    });
  }

  // Sizes a pool that exists (configured on some instance); an unknown name is a 404 from
  // `scalePool`, never a new pool on every worker.
  api.post("/pools/:name", role("admin"), body, async (c) => {
    const pool = c.req.param("name");
    if (!isName(pool)) {
      throw new ApiError("invalid_request", `Invalid pool name ${JSON.stringify(pool)}`, [{
        path: "name",
        message: NAME_RULE,
      }]);
    }
    const input = requiredBody(c.get("body"), '{ "concurrency": n }');
    const { concurrency, ...limits } = validate(PoolSizeSchema, input, "pool size");
    // Every field checked before anything is stored (`per` is the limits' own check).
    const parsed = parsePoolLimits(limits);
    if ("issues" in parsed) throw new ValidationError(parsed.issues, "pool limits");
    if (concurrency !== undefined) await scheduler.scalePool(pool, concurrency);
    if (Object.keys(limits).length) await scheduler.setPoolLimits(pool, limits);
    return c.json({ pool, ...(concurrency !== undefined ? { concurrency } : {}), ...limits });
  });

  api.get("/history", role("read"), async (c) => {
    const page = await scheduler.history(parseListQuery(c.req.url, "history"));
    return c.json({ attempts: page.items, next: page.next });
  });
}
