/**
 * @module dashboard/client/state — what every part of the page shares: the latest stats, the
 * mounted view's controller, the poll clock, and the armed confirm button.
 */
import type { Controller, Route, Stats, TaskStatus } from "./types.ts";

export const BASE = "/skedulr";
/** The counters' order: a task's path through its life, not the library's list order. */
export const STATUSES: readonly TaskStatus[] = [
  "queued",
  "scheduled",
  "waiting",
  "running",
  "succeeded",
  "retrying",
  "dead",
  "cancelled",
  "expired",
];
export const FINAL: ReadonlySet<string> = new Set<TaskStatus>([
  "succeeded",
  "dead",
  "cancelled",
  "expired",
]);
/** Final statuses a task can be resubmitted from. */
export const RESUBMITTABLE: ReadonlySet<string> = new Set<TaskStatus>([
  "dead",
  "cancelled",
  "expired",
]);

export interface PageState {
  stats: Stats | null;
  ctl: Controller | null;
  route: Route | null;
  tick: number;
  /** A poll is in flight: the next tick is skipped. */
  busy: boolean;
  /** The confirm button waiting for its second click (keyed, so it survives re-renders). */
  armed: { key: string; until: number } | null;
  online: boolean | null;
  /** The event stream is open: the ticker reads only what changed (stream.ts). */
  streaming: boolean;
  /** A task changed since the stats, or the open view, were last read. */
  statsDue: boolean;
  viewDue: boolean;
  /** When the stats and the view were last read (ms, the page's clock). */
  statsAt: number;
  viewAt: number;
}

export const S: PageState = {
  stats: null,
  ctl: null,
  route: null,
  tick: 0,
  busy: false,
  armed: null,
  online: null,
  streaming: false,
  statsDue: true,
  viewDue: true,
  statsAt: 0,
  viewAt: 0,
};
