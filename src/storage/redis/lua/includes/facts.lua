--[[
  The facts the scripts share with TypeScript. Generated from src/storage/redis/lua-facts.ts
  by scripts/tools/gen-lua.ts: do not edit. A script carries the lines it names.
]]
local LAYOUT = '6' -- src/storage/redis/layout.ts
local UNVERSIONED_LAYOUT = '1' -- src/storage/redis/layout.ts
local LAYOUT_ERROR = 'SKEDULR_LAYOUT' -- src/storage/redis/layout.ts
local Code = {ok = 0, notFound = -1, idInUse = -2, keyHeld = -3, unknownParent = -4, capacity = -5, wrongStatus = -6, scheduleIdInUse = -7} -- src/storage/redis/codes.ts
local ALL_STATUSES = {'scheduled', 'waiting', 'queued', 'running', 'retrying', 'succeeded', 'dead', 'cancelled', 'expired'} -- src/core/task.ts
local FINAL_STATUSES = {succeeded = true, dead = true, cancelled = true, expired = true} -- src/core/task.ts
local UNFINISHED_STATUSES = {'scheduled', 'waiting', 'queued', 'running', 'retrying'} -- src/core/task.ts: ALL_STATUSES but FINAL_STATUSES
local EXPIRABLE_STATUSES = {queued = true, scheduled = true, retrying = true, waiting = true} -- src/core/task.ts
local PRUNABLE_STATUSES = {succeeded = true, cancelled = true} -- src/storage/memory/task-table.ts
local INDEXED_STATUSES = {waiting = true, dead = true, cancelled = true, expired = true} -- src/storage/redis/keys.ts
local SEQ_WIDTH = 16 -- src/storage/redis/keys.ts
local INDEX_BUCKET = 128 -- src/storage/redis/keys.ts
local SEQ_FORMAT = '%016d' -- src/storage/redis/keys.ts: SEQ_WIDTH
local DURATION_SAMPLES = 1000 -- src/storage/stats.ts
local CASCADE_BUDGET = 1000 -- src/storage/memory/cascade.ts
local DEFAULT_MAX_STALLS = 3 -- src/core/task.ts
local DEFAULT_POOL = 'default' -- src/core/task.ts
local NEVER = 8640000000000000 -- src/core/catch-up.ts
local PRUNED_STATUS = 'pruned' -- src/core/task.ts
local SUBMIT_KEY_GRACE_MS = 60000 -- src/storage/redis/keys.ts
local FLOW_SCAN_EXTRA = 64 -- src/storage/memory/flows.ts
local FLOW_UNPARK_BOUND = 100 -- src/storage/memory/flows.ts
local FLOW_STARTS_GRACE_MS = 60000 -- src/storage/memory/flows.ts
local FLOW_DUE_BOUND = 16 -- src/storage/memory/flows.ts
local FLOW_IDLE_TTL_MS = 86400000 -- src/storage/memory/flows.ts
local FLOW_KEYS_SCAN = 1000 -- src/storage/types.ts
local FLOW_KEYS_LISTED = 50 -- src/storage/types.ts
local MAX_TASK_LOG_LINES = 1000 -- src/core/bounds.ts
local MAX_TASK_LOG_BYTES = 262144 -- src/core/bounds.ts
local TASK_HEAD = {'id', 'type', 'pool', 'priority', 'payload', 'body', 'maxRetries'} -- src/storage/redis/codec.ts
local TASK_OPTIONS = {'runAt', 'key', 'onSuccessOf', 'onFailureOf', 'dedupeKey', 'dedupeTtl', 'debounceKey', 'debounceDelay', 'debounceMaxWait', 'expiresAt', 'flowKey', 'flowParallelism', 'flowRate', 'flowPeriod', 'callback'} -- src/storage/redis/codec.ts
local taskHead = function(argv, i) return {id = argv[i + 0], type = argv[i + 1], pool = argv[i + 2], priority = argv[i + 3], payload = argv[i + 4], body = argv[i + 5], maxRetries = argv[i + 6], runAt = '', key = '', onSuccessOf = '', onFailureOf = '', dedupeKey = '', dedupeTtl = '', debounceKey = '', debounceDelay = '', debounceMaxWait = '', expiresAt = '', flowKey = '', flowParallelism = '', flowRate = '', flowPeriod = '', callback = ''} end -- src/storage/redis/codec.ts: TASK_HEAD from argv[i] and every TASK_OPTIONS "", in one table sized at once
local plainHead = function(argv, i) return {id = argv[i + 0], type = argv[i + 1], pool = argv[i + 2], priority = argv[i + 3], payload = argv[i + 4], body = argv[i + 5], maxRetries = argv[i + 6], plain = true} end -- src/storage/redis/codec.ts: a plain task (no option, no parent): its TASK_HEAD from argv[i] and `plain`, in one table sized at once
local SHORT_HEAD = {'id', 'type', 'payload', 'body'} -- src/storage/redis/codec.ts
local shortHead = function(argv, i) return {id = argv[i + 0], type = argv[i + 1], payload = argv[i + 2], body = argv[i + 3], pool = 'default', priority = '0', maxRetries = '0', plain = true} end -- src/storage/redis/codec.ts: a plain task at its head's defaults: SHORT_HEAD from argv[i], the pool, priority and maxRetries at their defaults, and `plain`
local TASK_EVENT_CHUNK = 100 -- src/core/task-event.ts
local TASK_EVENT_BUFFER = 10000 -- src/core/task-event.ts
local CLAIMED_FIELDS = {'status', 'attempt', 'type', 'priority', 'payload', 'maxRetries', 'runAt', 'key', 'body', 'expiresAt', 'fk', 'seq', 'progress', 'error', 'stalls'} -- src/storage/redis/claims.ts
local CLAIMED_FIRST = 12 -- src/storage/redis/claims.ts: the fields of CLAIMED_FIELDS every claim reads
local CALLBACK_TYPE = 'callback' -- src/core/callback.ts
local CALLBACK_MAX_RETRIES = 8 -- src/core/callback.ts
local CALLBACK_ID_PREFIX = '__cb_' -- src/core/callback.ts
local CALLBACK_ID_PROBES = 100 -- src/core/callback.ts
local CALLBACK_BODY = '"timeoutMs":null,"backoff":{"type":"exponential","baseMs":5000,"maxMs":600000,"jitter":0.1},"scheduleId":null,"dependsOn":[],"onSuccessOf":null,"onFailureOf":null,"maxStalls":3' -- src/core/callback.ts: callbackTask's body fields but createdAt, as JSON members
local CLAIMED_AT = {status = 1, attempt = 2, type = 3, priority = 4, payload = 5, maxRetries = 6, runAt = 7, key = 8, body = 9, expiresAt = 10, fk = 11, seq = 12, progress = 13, error = 14, stalls = 15} -- src/storage/redis/claims.ts: CLAIMED_FIELDS, 1-based
local ATTEMPT_AT = {taskId = 1, type = 2, pool = 3, attempt = 4, status = 5, error = 6, startedAt = 7, finishedAt = 8, durationMs = 9, workerId = 10} -- src/storage/redis/attempt-codec.ts: ATTEMPT_FIELDS, 1-based
