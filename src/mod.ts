/**
 * @module skedulr — a horizontally scalable background task scheduler.
 *
 * @example
 * import { Scheduler } from "skedulr";
 * const s = new Scheduler({ pools: { default: 10 } });
 * s.register("hello", (payload: { name: string }) => `hello ${payload.name}`);
 * await s.start();
 * const id = await s.submit({ type: "hello", payload: { name: "world" } });
 */
export {
  type PoolOptions,
  type PoolStats,
  type RegisterOptions,
  Scheduler,
  type SchedulerOptions,
  type SchedulerStats,
  type Submitted,
} from "./scheduler.ts";
export { type Clock, ManualClock, systemClock } from "./core/clock.ts";
export {
  CapacityError,
  ConflictError,
  type ErrorCode,
  type FieldIssue,
  isPermanentError,
  isStorageFault,
  NotFoundError,
  PermanentError,
  SkedulrError,
  type StorageFault,
  StorageUnavailableError,
  UnknownTypeError,
  ValidationError,
} from "./core/errors.ts";
export { type Duration, durationMs, parseDuration } from "./core/duration.ts";
export { backoffDelay, type BackoffFn } from "./core/backoff.ts";
export {
  collectSpecIssues,
  NameSchema,
  parseTaskSpec,
  type SpecBounds,
  type TaskSpec,
  TaskSpecSchema,
} from "./core/task-schema.ts";
export {
  CATCH_UP_MAX,
  DEFAULT_MIN_INTERVAL_MS,
  isWellFormed,
  MAX_EXPIRY_MS,
  MAX_GLOBAL_CONCURRENCY,
  MAX_LOG_FIELDS_BYTES,
  MAX_LOG_MESSAGE_BYTES,
  MAX_PARENT_RESULTS_BYTES,
  MAX_PARENTS_READ,
  MAX_RATE_LIMIT,
  MAX_RATE_PER_MS,
  MAX_TASK_LOG_BYTES,
  MAX_TASK_LOG_LINES,
  MISSED_AFTER_MS,
  NEXT_RUNS_LISTED,
  textIssues,
} from "./core/bounds.ts";
export type { LogLine } from "./core/task-log.ts";
export { nextRuns } from "./core/catch-up.ts";
export { isTraceparent } from "./core/traceparent.ts";
export {
  type EventPosition,
  formatPosition,
  parseEventId,
  parsePosition,
  positionAfter,
  TASK_EVENT_BUFFER,
  TASK_EVENT_CHUNK,
  TASK_EVENT_KINDS,
  type TaskEvent,
  type TaskEventKind,
} from "./core/task-event.ts";
export {
  openTaskEventFeed,
  type TaskEventFeed,
  type TaskEventFeedOptions,
  type TaskEventFilter,
} from "./client/task-event-feed.ts";
export {
  parsePoolLimits,
  type PoolLimits,
  type PoolLimitsSpec,
  type RateLimit,
} from "./core/pool-limits.ts";
export { configureErrorStacks, type ErrorStackPolicy } from "./core/stack-paths.ts";
export {
  ALL_STATUSES,
  FINAL_STATUSES,
  PRUNED_STATUS,
  RESUBMITTABLE_STATUSES,
  type ResubmittableStatus,
} from "./core/task.ts";
export { isName, NAME_PATTERN, NAME_RULE, newId } from "./core/ids.ts";
export type {
  AttemptRecord,
  Backoff,
  Callback,
  CatchUp,
  FinalStatus,
  NewTask,
  ScheduleRecord,
  TaskError,
  TaskRecord,
  TaskStatus,
} from "./core/task.ts";
export { TimingWheel, type TimingWheelOptions } from "./core/timing-wheel.ts";
export { MemoryStorage, type MemoryStorageOptions } from "./storage/memory/memory-storage.ts";
export type * from "./storage/storage.ts";
export {
  compose,
  consoleLogger,
  type Handler,
  type Logger,
  loggingMiddleware,
  type Middleware,
  silentLogger,
  type TaskContext,
  timingMiddleware,
} from "./worker/middleware.ts";
export { AbortReason } from "./worker/runner.ts";
export type { ParentOutcome, Parents } from "./worker/parents.ts";
export {
  type HttpFetcher,
  httpTaskHandler,
  type HttpTaskOptions,
  type HttpTaskPayload,
  HttpTaskPayloadSchema,
  httpTaskPayloadSchema,
  type HttpTaskResult,
  type OutboundRequest,
  type OutboundResponse,
  verifySignature,
  webFetch,
} from "./worker/http-task.ts";
export {
  callbackTaskHandler,
  type CallbackTaskOptions,
  DEFAULT_CALLBACK_TIMEOUT_MS,
} from "./worker/callback-task.ts";
export { CALLBACK_MAX_RETRIES, CALLBACK_TYPE, DEFAULT_CALLBACK_POOL } from "./core/callback.ts";
export {
  DEFAULT_OUTBOUND_POLICY,
  type OutboundPolicy,
  outboundPolicy,
} from "./core/outbound-policy.ts";
export { REDACTED } from "./core/secret-headers.ts";
export {
  CALLBACK_POOL_SIZE,
  ConfigError,
  ENV_VARS,
  parseWorkerConfig,
  type WorkerConfig,
  workerPools,
} from "./worker/config.ts";
export { VERSION } from "./version.ts";
export {
  API_ROLES,
  type ApiKeyEntry,
  type ApiRole,
  LOOPBACK_HOSTS,
  parseAllowedHosts,
  parseHost,
  parseProxyHeader,
  TOKEN_NAME,
} from "./worker/access-config.ts";
export {
  PartitionedStorage,
  type PartitionedStorageOptions,
  type PartStore,
} from "./storage/partitioned/partitioned-storage.ts";
export { hashPartition, MAX_PARTITIONS, partitionOfId, withPartition } from "./core/partitions.ts";
