/**
 * @module dashboard/client/types — the JSON the dashboard reads, typed by the server's own
 * types (type-only imports: the bundle carries none of their code), so a change to a record
 * the dashboard shows fails its type check instead of rendering `undefined`.
 */
import type { InstanceInfo, LogLine, SchedulerStats, TaskRecord } from "../../../src/mod.ts";
import type { ChildRef } from "../api.ts";

export type {
  AttemptRecord,
  Backoff,
  InstanceInfo,
  LogLine,
  PoolStats,
  ScheduleRecord,
  TaskRecord,
  TaskStatus,
} from "../../../src/mod.ts";
export type { ChildRef, Throughput } from "../api.ts";

/** `GET /api/stats`. */
export type Stats = SchedulerStats;
/** `GET /api/tasks`. */
export interface TaskPage {
  tasks: TaskRecord[];
  next: string | null;
}
/** `GET /api/tasks/:id/logs`. */
export interface TaskLog {
  logs: LogLine[];
  dropped: number;
  next: string | null;
}
/** `GET /api/workers`. */
export interface Workers {
  workers: InstanceInfo[];
}
/** `GET /api/dashboard/tasks/:id/children`. */
/** What GET /tasks/:id adds to the record: its parents, with their statuses now. */
export interface TaskDetail extends TaskRecord {
  parents?: { id: string; relation: string; status: string }[];
}

export interface Children {
  children: ChildRef[];
  complete: boolean;
}

/** An error from a request: `status` is the HTTP status when the API answered at all. */
export type Failure = Error & { status?: number };

/** Where the hash points: `#/<name>/<arg>?<params>`. */
export interface Route {
  name: string;
  arg: string | null;
  params: URLSearchParams;
}

/** What a mounted view offers the router and the poller; every part is optional. */
export interface Controller {
  title?: string;
  /** A user-driven (re)load: on mount and after every action. */
  load?: () => Promise<unknown>;
  /** The view's even poll tick: a request, or null to skip this one. */
  poll?: () => Promise<unknown> | null;
  /** True when the view has another read queued for its next tick (e.g. the attempts). */
  more?: () => boolean;
  /** A 4xx from `load` or `poll` (outages go to the banner instead). */
  fail?: (e: Failure) => void;
  unmount?: () => void;
  onStats?: (s: Stats) => void;
}

/** A view renders into `el` and hands back its controller. */
export type View = (el: HTMLElement, route: Route) => Controller;
