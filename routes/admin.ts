/**
 * @module admin — schedules, workers, stats, pause/resume, pool sizes and cluster-wide
 * limits, and history under `/skedulr/api`.
 */
import type { Hono, MiddlewareHandler } from "hono";
import {
  isName,
  NAME_RULE,
  NotFoundError,
  parsePoolLimits,
  type Scheduler,
  ValidationError,
} from "../src/mod.ts";
import { requiredBody, validate } from "./body.ts";
import type { SkedulrEnv } from "./env.ts";
import { parseListQuery, PauseSchema, PoolSizeSchema } from "./schemas.ts";
import { ApiError } from "./errors.ts";
import { role } from "./roles.ts";

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
      const { pool } = validate(PauseSchema, c.var.body ?? {}, `${action} request`);
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
    const input = requiredBody(c.var.body, '{ "concurrency": n }');
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
