--[[
  complete: ends running attempts in success.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  history maxAgeMs (row and attempt retention)
  ARGV[2]  history maxCount
  ARGV[3..] octuples, one per task, applied in order: id, workerId, claim token, now,
           result JSON, durationMs and the attempt's history entry (AttemptRecord JSON) as
           the worker built them from its claim, or "" and "" to have them built from the
           stored task ("-" for the entry: file none, only the duration sample), and the
           attempt's log lines not stored yet ("" for none:
           includes/task-logs.lua)

  Per task, only while workerId holds the lease of that claim (fencing: a settle that
  arrives after the task was recovered and claimed again changes nothing): appends its log
  lines, stores the result (a null one is left out: an absent field reads as null), records
  the attempt
  (history, duration sample, totals.succeeded), releases the key, settles workflow children
  (conditions met -> queued or scheduled; broken -> cancelled, transitively) and applies
  row retention. Returns one integer per task: 1 completed (also when this claim already
  completed it: a retried call whose first reply was lost), 0 lease not held (no change).

  A task with no key, no children and no callback takes a fast path: the same writes as finish() and
  move() make for running -> succeeded, with the counters summed once per call. Completions
  are most of a busy store's script time, and the general path's table building and
  dispatch were a third of it.
]]
--- @include "tkey"
--- @include "bump"
--- @include "defer"
--- @include "load"
--- @include "attempts"
--- @include "finish"
--- @include "done"
--- @include "slots"
--- @include "flow-unpark"
--- @include "task-events"
--- @include "task-logs"

RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[1]), tonumber(ARGV[2])

local LEASES = P .. 'leases'
local HOT_FIELDS = {'status', 'workerId', 'pool', 'type', 'key', 'children', 'claimSeq', 'fk',
  'attempt', 'cb', 'order'}
local fast, fastByPool = 0, {}
local out = {}
for i = 3, #ARGV, 8 do
  local id, workerId, token, nowText, result, json = ARGV[i], ARGV[i + 1], ARGV[i + 2],
    ARGV[i + 3], ARGV[i + 4], ARGV[i + 6]
  local k = tkey(id)
  local v = redis.call('HMGET', k, unpack(HOT_FIELDS))
  if v[1] == 'running' and v[2] == workerId and v[7] == token then
    local now = tonumber(nowText)
    -- Only the call that ends the attempt appends: a repeated one answers 1 below.
    appendLogs(id, token, ARGV[i + 7])
    -- No duration: the worker did not know the claim (its entry is "" or "-").
    if v[5] or v[6] == '1' or v[10] or ARGV[i + 5] == '' then
      local t = load(id, RUNNING_FIELDS)
      if ARGV[i + 5] == '' then
        recordAttempt(t, 'succeeded', nil, now, json == '-')
      else
        fileAttempt(t.type, json, ARGV[i + 5], now)
      end
      finish(t, 'succeeded', now, result ~= 'null' and {'result', result} or nil)
      bump(P .. 'totals', 'succeeded', 1)
    else
      -- One seq orders the attempt in history and the row among finished rows.
      local seq = fileAttempt(v[4], json, ARGV[i + 5], now)
      if result == 'null' then
        redis.call('HSET', k, 'finishedAt', nowText, 'status', 'succeeded')
      else
        redis.call('HSET', k, 'result', result, 'finishedAt', nowText, 'status', 'succeeded')
      end
      defer('ZREM', LEASES, id)
      -- Its row never leaves `retained` but by pruning (a succeeded task is never revived, and
      -- one without children has no cascade): `seq` need not name its entry.
      retain(seq, finishedMember('succeeded', v[11], id))
      local pool = v[3] or DEFAULT_POOL
      fastByPool[pool] = (fastByPool[pool] or 0) + 1
      fast = fast + 1
      finishedAny = true
      if v[8] then flowStopped(v[8], now) end
      taskEvent('succeeded', id, v[4], pool, nowText, v[9])
    end
    out[#out + 1] = 1
  elseif v[1] == 'succeeded' and v[7] == token then
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
if fast > 0 then
  bump(COUNTS, 'running', -fast)
  bump(COUNTS, 'succeeded', fast)
  bump(P .. 'totals', 'succeeded', fast)
  for pool, n in pairs(fastByPool) do
    bump(P .. 'running', pool, -n)
    slotFreed(pool)
  end
end
return done(out)
